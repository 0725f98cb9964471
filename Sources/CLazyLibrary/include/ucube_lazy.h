// A shared library that only some commands use, loaded when one of its functions is first called instead of by the
// dynamic loader at every start (libdbus-1 and its chain, GNU readline, libcrypto cost 1.3 ms of `ucube --version`'s
// 3.4 ms in relocations alone). CDBus, CReadline and CLibCrypto define each function they use under its own name,
// with the prototype of the library's header (the compiler checks it), as a stub that resolves the real one here on
// its first call: see UCUBE_LAZY in each of their lazy.c files.
#ifndef UCUBE_LAZY_H
#define UCUBE_LAZY_H
#include <pthread.h>

/// One library: opened once (whichever thread asks first), never closed.
struct ucube_lazy_library {
    /// The name to dlopen: the SONAME the library's Debian package installs (e.g. libdbus-1.so.3).
    const char *soname;
    /// What needs it and which Debian package provides it, for the error when it cannot be loaded.
    const char *purpose;
    const char *package;
    pthread_once_t once;
    void *handle;
    /// dlerror()'s text when dlopen failed (copied: dlerror's buffer belongs to the thread that opened it).
    char error[256];
};

#define UCUBE_LAZY_LIBRARY(name, why, debian)                                                                        \
    { .soname = name, .purpose = why, .package = debian, .once = PTHREAD_ONCE_INIT }

/// The address of `name` in `library`, opening it first if needed. Never NULL: when the library or the symbol is
/// missing (a broken installation, since the package depends on the library), says which and what to install on
/// stderr and exits 1 (`ExitCodes.failure`, an unexpected internal error) — a C function has no error to return.
void *ucube_lazy_symbol(struct ucube_lazy_library *library, const char *name);

/// Defines `name` (declared by the library's header, so the compiler checks the prototype) as a stub that calls the
/// real function, resolved on first call and cached. `parameters` is the parenthesised parameter list with names,
/// `arguments` the names again. Hidden: the executable does not export the stub, so the library, once loaded, still
/// binds its own internal calls to itself.
#define UCUBE_LAZY(library, result, name, parameters, arguments)                                                     \
    __attribute__((visibility("hidden"))) result name parameters {                                                   \
        static __typeof__(&name) ucube_lazy_real;                                                                    \
        __typeof__(&name) ucube_lazy_function = __atomic_load_n(&ucube_lazy_real, __ATOMIC_ACQUIRE);                 \
        if (!ucube_lazy_function) {                                                                                  \
            ucube_lazy_function = (__typeof__(&name))ucube_lazy_symbol(&library, #name);                             \
            __atomic_store_n(&ucube_lazy_real, ucube_lazy_function, __ATOMIC_RELEASE);                               \
        }                                                                                                            \
        return ucube_lazy_function arguments;                                                                        \
    }

/// UCUBE_LAZY for a function that returns void.
#define UCUBE_LAZY_VOID(library, name, parameters, arguments)                                                        \
    __attribute__((visibility("hidden"))) void name parameters {                                                     \
        static __typeof__(&name) ucube_lazy_real;                                                                    \
        __typeof__(&name) ucube_lazy_function = __atomic_load_n(&ucube_lazy_real, __ATOMIC_ACQUIRE);                 \
        if (!ucube_lazy_function) {                                                                                  \
            ucube_lazy_function = (__typeof__(&name))ucube_lazy_symbol(&library, #name);                             \
            __atomic_store_n(&ucube_lazy_real, ucube_lazy_function, __ATOMIC_RELEASE);                               \
        }                                                                                                            \
        ucube_lazy_function arguments;                                                                               \
    }

#endif
