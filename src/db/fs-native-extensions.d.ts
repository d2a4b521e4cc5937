// The part of fs-native-extensions (which ships no types) that the data directory's lock uses.
declare module 'fs-native-extensions' {
  /** An exclusive (or, with `shared`, a shared) lock on the open file `fd`, without waiting: false when another holds it. */
  export function tryLock(fd: number, options?: { shared?: boolean }): boolean;
}
