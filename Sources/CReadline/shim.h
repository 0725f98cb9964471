// GNU readline (Debian: libreadline-dev) for `ucube shell`. GPL-3.0: a binary linking it is distributed under
// GPL-3.0 terms (see the README's licence section).
//
// Swift 6 rejects readline's mutable C globals as shared mutable state, so the shell reaches them only through
// these getters and setters (PLATFORM.md "GNU readline from Swift 6").
#include <stdio.h>
#include <readline/readline.h>
#include <readline/history.h>

static inline void ucube_rl_set_readline_name(const char *name) { rl_readline_name = name; }
static inline void ucube_rl_set_catch_signals(int value) { rl_catch_signals = value; rl_catch_sigwinch = value; }
static inline void ucube_rl_set_completion(rl_completion_func_t *function) { rl_attempted_completion_function = function; }
static inline void ucube_rl_set_getc(rl_getc_func_t *function) { rl_getc_function = function; }
static inline void ucube_rl_set_attempted_completion_over(int value) { rl_attempted_completion_over = value; }
static inline const char *ucube_rl_line_buffer(void) { return rl_line_buffer; }
static inline void ucube_rl_set_completer_word_break_characters(const char *characters) {
    rl_completer_word_break_characters = (char *)characters;
}
static inline void ucube_rl_clear_line(void) {
    rl_replace_line("", 0);
    rl_point = 0;
    rl_end = 0;
}
static inline int ucube_history_length(void) { return history_length; }

// Flushes C stdio's stdout (Swift's `print` writes through it): after each shell command, so a program reading a
// piped shell sees each answer when it is ready, not when the shell exits.
static inline void ucube_flush_stdout(void) { fflush(stdout); }
