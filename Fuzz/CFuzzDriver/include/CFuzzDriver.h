// libFuzzer's driver, called from Swift's main (Fuzz/Driver): SwiftPM links an executable's main itself, so the
// fuzz build cannot use libFuzzer's own main. Linked only in the -sanitize=fuzzer build (Scripts/fuzz.sh).
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
