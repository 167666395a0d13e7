#ifndef CNCURSES_SHIM_H
#define CNCURSES_SHIM_H
// The system ncurses with wide characters (Debian: libncurses-dev; pkg-config ncursesw), for `news read` only
// (the NewsTerminal module). UTF-8 text is written with addnstr once the locale's character type is UTF-8, and keys
// are read with get_wch, so CJK and emoji are measured and typed as the terminal shows them.
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#include <curses.h>
#include <signal.h>
#include <unistd.h>

// Macros and globals Swift cannot import (function-like macros) or should not read as mutable globals.
static inline WINDOW *cncurses_stdscr(void) { return stdscr; }
static inline int cncurses_lines(void) { return LINES; }
static inline int cncurses_columns(void) { return COLS; }
static inline int cncurses_attr_bold(void) { return (int)A_BOLD; }
static inline int cncurses_attr_reverse(void) { return (int)A_REVERSE; }
static inline int cncurses_attr_dim(void) { return (int)A_DIM; }
static inline int cncurses_attr_underline(void) { return (int)A_UNDERLINE; }
static inline int cncurses_key_code_yes(void) { return KEY_CODE_YES; }

/// Reads one key without waiting: 0 none, 1 a character (`*value` its code point), 2 a function key (`*value` its
/// KEY_ code).
static inline int cncurses_read_key(int *value) {
  wint_t key = 0;
  int kind = wget_wch(stdscr, &key);
  *value = (int)key;
  if (kind == ERR) return 0;
  return kind == KEY_CODE_YES ? 2 : 1;
}

/// On a crash (a trap, a fault, an abort) the terminal is given back before the process dies of the signal, so a
/// shell is never left without echo in the alternate screen. endwin is not async-signal-safe, but the process is
/// ending anyway; the default action then runs.
static inline void cncurses_crash_handler(int signal_number) {
  endwin();
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}
static inline void cncurses_restore_on_crash(void) {
  int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE};
  for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; i++) {
    struct sigaction action;
    action.sa_handler = cncurses_crash_handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    sigaction(signals[i], &action, 0);
  }
}
static inline void cncurses_default_on_crash(void) {
  int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE};
  for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; i++) signal(signals[i], SIG_DFL);
}

/// The write end of the pipe the signal handlers below write the signal's number to (the reader's event loop reads
/// the other end): the only thing a handler does, and write(2) is async-signal-safe.
static int cncurses_signal_pipe = -1;
static inline void cncurses_signal_to_pipe(int signal_number) {
  unsigned char byte = (unsigned char)signal_number;
  if (cncurses_signal_pipe >= 0) (void)!write(cncurses_signal_pipe, &byte, 1);
}
/// Sends SIGWINCH, SIGINT, SIGTERM, SIGHUP and SIGQUIT to `fd` as one byte each; -1 puts the default actions back.
static inline void cncurses_signals_to(int fd) {
  int signals[] = {SIGWINCH, SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  cncurses_signal_pipe = fd;
  for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; i++) {
    struct sigaction action;
    action.sa_handler = fd >= 0 ? cncurses_signal_to_pipe : SIG_DFL;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(signals[i], &action, 0);
  }
}
#endif
