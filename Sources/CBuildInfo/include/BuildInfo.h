// What the binary knows about its own build, for `ucube --version`.
#ifndef UCUBE_BUILD_INFO_H
#define UCUBE_BUILD_INFO_H

/// The git commit ucube was built from: what `make` wrote into the binary's `ucube_commit` section after linking
/// (the Makefile's `build` target), or "unknown" for a plain `swift build`.
const char *ucube_git_commit(void);

#endif
