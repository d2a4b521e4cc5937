#!/usr/bin/env bash
# Makes, once, a streaming replica of the machine's PostgreSQL cluster (Debian's packages: the
# newest version under /etc/postgresql, cluster "main" on 127.0.0.1:5432) as the cluster
# "replica" on port 5433, and starts it if it is stopped. Safe to run again: a replica that exists
# and is in recovery is only started. The primary gets a replication line in pg_hba.conf (trust
# from 127.0.0.1, like its other lines here) when it has none. Prints the replica's URL last.
#   scripts/ci-replica.sh        REPLICA_PORT=5433 REPLICA_CLUSTER=replica by default
set -euo pipefail

version="${PG_VERSION:-$(ls /etc/postgresql | sort -V | tail -n 1)}"
name="${REPLICA_CLUSTER:-replica}"
port="${REPLICA_PORT:-5433}"
primary=(-h 127.0.0.1 -p 5432 -U postgres)

as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
setting() { psql "${primary[@]}" -d postgres -Atc "SHOW $1"; }

case "$(setting wal_level)" in replica | logical) ;; *)
  echo "ci-replica: the primary's wal_level is $(setting wal_level); set wal_level = replica and restart it" >&2
  exit 1
  ;;
esac
if [ "$(setting max_wal_senders)" -lt 2 ]; then echo "ci-replica: the primary's max_wal_senders is below 2" >&2; exit 1; fi

hba="$(setting hba_file)"
if ! grep -qE '^[[:space:]]*host[[:space:]]+replication[[:space:]]+all[[:space:]]+127\.0\.0\.1/32[[:space:]]+trust' "$hba"; then
  echo "host replication all 127.0.0.1/32 trust" >>"$hba"
  psql "${primary[@]}" -d postgres -qAtc 'SELECT pg_reload_conf()' >/dev/null
  echo "ci-replica: added a replication line to $hba"
fi

if ! pg_lsclusters -h | awk -v v="$version" -v n="$name" '$1 == v && $2 == n { found = 1 } END { exit !found }'; then
  started=$SECONDS
  pg_createcluster -p "$port" "$version" "$name" -- --auth-local=trust --auth-host=trust >/dev/null
  data="$(pg_lsclusters -h | awk -v v="$version" -v n="$name" '$1 == v && $2 == n { print $6 }')"
  # The new cluster's own data is replaced by a copy of the primary's; -R writes standby.signal
  # and primary_conninfo, so that it starts as a hot standby streaming from the primary.
  find "$data" -mindepth 1 -delete
  as_postgres pg_basebackup -h 127.0.0.1 -p 5432 -U postgres -D "$data" -R -X stream -c fast
  echo "ci-replica: cluster $version/$name made from the primary in $((SECONDS - started)) s"
fi

status="$(pg_lsclusters -h | awk -v v="$version" -v n="$name" '$1 == v && $2 == n { print $4 }')"
if [[ "$status" != online* ]]; then pg_ctlcluster --skip-systemctl-redirect "$version" "$name" start; fi
for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p "$port" -q && break; sleep 1; done
recovery="$(psql -h 127.0.0.1 -p "$port" -U postgres -d postgres -Atc 'SELECT pg_is_in_recovery()')"
if [ "$recovery" != t ]; then echo "ci-replica: the cluster on port $port is not a replica (pg_is_in_recovery() = $recovery)" >&2; exit 1; fi
# A replay paused by a test that did not finish is resumed.
psql -h 127.0.0.1 -p "$port" -U postgres -d postgres -qAtc 'SELECT pg_wal_replay_resume()' >/dev/null
echo "postgres://postgres@127.0.0.1:${port}/postgres"
