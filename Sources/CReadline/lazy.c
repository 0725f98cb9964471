// GNU readline, loaded when `ucube shell` first calls it on a terminal (ucube_lazy.h): no other command loads it.
// Every function and variable the shell uses is here: a new one is a link error until it is added.
#include "shim.h"

#include <termios.h>

#include "ucube_lazy.h"

static struct ucube_lazy_library libreadline =
    UCUBE_LAZY_LIBRARY("libreadline.so.8", "the shell's line editing (GNU readline)", "libreadline8");

#define LAZY(result, name, parameters, arguments) UCUBE_LAZY(libreadline, result, name, parameters, arguments)
#define LAZY_VOID(name, parameters, arguments) UCUBE_LAZY_VOID(libreadline, name, parameters, arguments)

LAZY(char *, readline, (const char *prompt), (prompt))
LAZY(char **, rl_completion_matches, (const char *text, rl_compentry_func_t *entry), (text, entry))
LAZY_VOID(rl_replace_line, (const char *text, int clear_undo), (text, clear_undo))
LAZY_VOID(rl_prep_terminal, (int meta_flag), (meta_flag))
LAZY_VOID(add_history, (const char *line), (line))
LAZY_VOID(stifle_history, (int max), (max))
LAZY(int, read_history, (const char *filename), (filename))
LAZY(int, write_history, (const char *filename), (filename))
LAZY(int, append_history, (int count, const char *filename), (count, filename))
LAZY(int, history_truncate_file, (const char *filename, int lines), (filename, lines))

// readline's variables, by address: `variable(name)` is the library's own `name` (an lvalue of the header's type).
#define VARIABLE(name)                                                                                               \
    static __typeof__(name) *name##_address(void) {                                                                  \
        static __typeof__(name) *address;                                                                            \
        __typeof__(name) *found = __atomic_load_n(&address, __ATOMIC_ACQUIRE);                                       \
        if (!found) {                                                                                                \
            found = (__typeof__(name) *)ucube_lazy_symbol(&libreadline, #name);                                      \
            __atomic_store_n(&address, found, __ATOMIC_RELEASE);                                                     \
        }                                                                                                            \
        return found;                                                                                                \
    }
#define variable(name) (*name##_address())

VARIABLE(rl_readline_name)
VARIABLE(rl_catch_signals)
VARIABLE(rl_catch_sigwinch)
VARIABLE(rl_attempted_completion_function)
VARIABLE(rl_getc_function)
VARIABLE(rl_attempted_completion_over)
VARIABLE(rl_line_buffer)
VARIABLE(rl_completer_word_break_characters)
VARIABLE(rl_point)
VARIABLE(rl_end)
VARIABLE(history_length)
VARIABLE(rl_prep_term_function)
VARIABLE(rl_instream)

void ucube_rl_set_readline_name(const char *name) { variable(rl_readline_name) = name; }
void ucube_rl_set_catch_signals(int value) {
    variable(rl_catch_signals) = value;
    variable(rl_catch_sigwinch) = value;
}
void ucube_rl_set_completion(rl_completion_func_t *function) { variable(rl_attempted_completion_function) = function; }
void ucube_rl_set_getc(rl_getc_func_t *function) { variable(rl_getc_function) = function; }
void ucube_rl_set_attempted_completion_over(int value) { variable(rl_attempted_completion_over) = value; }
const char *ucube_rl_line_buffer(void) { return variable(rl_line_buffer); }
void ucube_rl_set_completer_word_break_characters(const char *characters) {
    variable(rl_completer_word_break_characters) = (char *)characters;
}
void ucube_rl_clear_line(void) {
    rl_replace_line("", 0);
    variable(rl_point) = 0;
    variable(rl_end) = 0;
}
int ucube_history_length(void) { return variable(history_length); }

// readline's own terminal set-up, then ISIG off: a Ctrl-C typed at the prompt reaches `rl_getc_function` as the byte
// 0x03, in order with the keys around it. As a signal it raced them (the key typed after it could land on the line it
// cleared). `rl_deprep_terminal` restores the settings saved before this change, so a running command still gets
// SIGINT from the terminal.
static void prep_terminal_without_signals(int meta_flag) {
    rl_prep_terminal(meta_flag);
    FILE *in = variable(rl_instream);
    int fd = fileno(in ? in : stdin);
    struct termios settings;
    if (tcgetattr(fd, &settings) == 0) {
        settings.c_lflag &= ~(tcflag_t)ISIG;
        tcsetattr(fd, TCSADRAIN, &settings);
    }
}
void ucube_rl_read_ctrl_c_as_a_key(void) { variable(rl_prep_term_function) = prep_terminal_without_signals; }
