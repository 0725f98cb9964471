#define _GNU_SOURCE
#include "ucube_lazy.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

// pthread_once takes no argument: the library being opened is handed over in a thread-local.
static _Thread_local struct ucube_lazy_library *opening;

static void open_library(void) {
    struct ucube_lazy_library *library = opening;
    // RTLD_LOCAL: the library's symbols stay out of the global scope (nothing else in the process looks them up).
    library->handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
    if (!library->handle) {
        const char *error = dlerror();
        snprintf(library->error, sizeof library->error, "%s", error ? error : "unknown error");
    }
}

static void fail(struct ucube_lazy_library *library, const char *what, const char *detail) {
    // One write, so that the two lines are not interleaved with another thread's output.
    char message[1024];
    int length = snprintf(message, sizeof message,
                          "ucube: error: %s needs %s, %s: %s\n"
                          "hint: install the %s package (Debian, Ubuntu), or reinstall ucube's package\n",
                          library->purpose, library->soname, what, detail ? detail : "unknown error",
                          library->package);
    if (length > 0) {
        size_t size = (size_t)length < sizeof message ? (size_t)length : sizeof message - 1;
        ssize_t ignored = write(STDERR_FILENO, message, size);
        (void)ignored;
    }
    _exit(1);
}

void *ucube_lazy_symbol(struct ucube_lazy_library *library, const char *name) {
    opening = library;
    pthread_once(&library->once, open_library);
    if (!library->handle) fail(library, "which cannot be loaded", library->error);
    dlerror();
    void *address = dlsym(library->handle, name);
    if (!address) {
        char what[160];
        snprintf(what, sizeof what, "whose %s cannot be found", name);
        fail(library, what, dlerror());
    }
    return address;
}
