#include "BuildInfo.h"

// A fixed-size, NUL-padded slot in its own ELF section, so the commit can be written into a linked binary
// (`objcopy --update-section ucube_commit=…`) without recompiling anything: passing it as a compiler definition
// instead would change every target's flags and rebuild the whole package for each commit. Writable and `used`,
// so the compiler can neither fold the default string into its readers nor drop the slot.
__attribute__((section("ucube_commit"), used, aligned(1))) char ucube_commit_slot[64] = "unknown";

const char *ucube_git_commit(void) { return ucube_commit_slot; }
