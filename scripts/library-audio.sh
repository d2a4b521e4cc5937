#!/bin/sh
# The library's spoken clips (docs/library.md#english-grammar), made offline from their transcripts
# with the speech synthesiser eSpeak NG (Debian: apt-get install espeak-ng): each
# catalogue/media/<assessment>/<name>.txt is spoken, in British English at 140 words a minute, into
# <name>.wav beside it. Run from the package root after changing a transcript, and commit both.
set -eu
for transcript in catalogue/media/*/*.txt; do
  clip="${transcript%.txt}.wav"
  espeak-ng -v en-gb -s 140 -g 4 -w "$clip" -f "$transcript"
  echo "$clip"
done
