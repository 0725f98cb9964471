// GNU readline (Debian: libreadline-dev) for `ucube shell`. GPL-3.0: a binary that uses it is distributed under
// GPL-3.0 terms (see the README's licence section). Loaded when the shell first calls it (lazy.c), not at start-up.
//
// Swift 6 rejects readline's mutable C globals as shared mutable state, so the shell reaches them only through
// these getters and setters (PLATFORM.md "GNU readline from Swift 6"), which lazy.c defines: the library is not
// linked, so its variables have no address until it is loaded.
#include <stdio.h>
#include <readline/readline.h>
#include <readline/history.h>

void ucube_rl_set_readline_name(const char *name);
void ucube_rl_set_catch_signals(int value);
void ucube_rl_set_completion(rl_completion_func_t *function);
void ucube_rl_set_getc(rl_getc_func_t *function);
void ucube_rl_set_attempted_completion_over(int value);
const char *ucube_rl_line_buffer(void);
void ucube_rl_set_completer_word_break_characters(const char *characters);
void ucube_rl_clear_line(void);
// At the prompt a typed Ctrl-C is read as the byte 0x03, not raised as SIGINT (lazy.c).
void ucube_rl_read_ctrl_c_as_a_key(void);
int ucube_history_length(void);

// Flushes C stdio's stdout (Swift's `print` writes through it): after each shell command, so a program reading a
// piped shell sees each answer when it is ready, not when the shell exits.
static inline void ucube_flush_stdout(void) { fflush(stdout); }
