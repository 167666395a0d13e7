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

#include <dlfcn.h>

// ncurses is loaded when `news read` starts (cncurses_load), not linked: a library in the program's DT_NEEDED list
// is loaded at every start, and `news` must start in a few milliseconds for every other command
// (docs/PERFORMANCE.md, "Command-line latency"). curses.h gives the types and constants; the functions are reached
// through these pointers, each behind a cn_ function of the same arguments. The pointers are static: only the
// NewsTerminal module calls them, so the program has one copy.
struct cncurses_api {
  SCREEN * (*f_newterm)(const char *type, FILE *out, FILE *in);
  void (*f_delscreen)(SCREEN *screen);
  int (*f_endwin)(void);
  int (*f_set_escdelay)(int delay);
  int (*f_cbreak)(void);
  int (*f_noecho)(void);
  int (*f_nonl)(void);
  int (*f_keypad)(WINDOW *window, bool on);
  int (*f_nodelay)(WINDOW *window, bool on);
  int (*f_curs_set)(int visibility);
  char * (*f_tigetstr)(const char *capability);
  int (*f_def_prog_mode)(void);
  int (*f_reset_prog_mode)(void);
  int (*f_refresh)(void);
  int (*f_resizeterm)(int lines, int columns);
  int (*f_clearok)(WINDOW *window, bool on);
  int (*f_wget_wch)(WINDOW *window, wint_t *key);
  int (*f_wmove)(WINDOW *window, int y, int x);
  int (*f_wclrtoeol)(WINDOW *window);
  int (*f_wattr_on)(WINDOW *window, attr_t attributes, void *options);
  int (*f_wattr_off)(WINDOW *window, attr_t attributes, void *options);
  int (*f_waddnstr)(WINDOW *window, const char *text, int count);
  int (*f_getcury)(const WINDOW *window);
  int (*f_getcurx)(const WINDOW *window);
  int (*f_wrefresh)(WINDOW *window);
  WINDOW **stdscr_pointer;
  int *lines_pointer;
  int *cols_pointer;
};
/// The pointers: function-local static storage (a file-scope static of a header is not emitted by the Swift
/// compiler's clang, and the link fails).
static inline struct cncurses_api *cncurses_api(void) {
  static struct cncurses_api api;
  return &api;
}

/// Loads the library (libncursesw.so.6, else libncursesw.so, else libncurses: macOS) and finds every function;
/// 0 when done, else -1 and `*missing` names what was not found.
static inline int cncurses_load(const char **missing) {
  static void *library = 0;
  if (library) return 0;
  const char *names[] = {"libncursesw.so.6", "libncursesw.so", "libncursesw.dylib", "libncurses.dylib"};
  void *found = 0;
  for (unsigned i = 0; i < sizeof names / sizeof names[0] && !found; i++) found = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (!found) {
    *missing = "libncursesw.so.6";
    return -1;
  }
  struct cncurses_api *api = cncurses_api();
#define CNCURSES_FIND(name) \
  if (!(*(void **)&api->f_##name = dlsym(found, #name))) { *missing = #name; return -1; }
  CNCURSES_FIND(newterm)
  CNCURSES_FIND(delscreen)
  CNCURSES_FIND(endwin)
  CNCURSES_FIND(set_escdelay)
  CNCURSES_FIND(cbreak)
  CNCURSES_FIND(noecho)
  CNCURSES_FIND(nonl)
  CNCURSES_FIND(keypad)
  CNCURSES_FIND(nodelay)
  CNCURSES_FIND(curs_set)
  CNCURSES_FIND(tigetstr)
  CNCURSES_FIND(def_prog_mode)
  CNCURSES_FIND(reset_prog_mode)
  CNCURSES_FIND(refresh)
  CNCURSES_FIND(resizeterm)
  CNCURSES_FIND(clearok)
  CNCURSES_FIND(wget_wch)
  CNCURSES_FIND(wmove)
  CNCURSES_FIND(wclrtoeol)
  CNCURSES_FIND(wattr_on)
  CNCURSES_FIND(wattr_off)
  CNCURSES_FIND(waddnstr)
  CNCURSES_FIND(getcury)
  CNCURSES_FIND(getcurx)
  CNCURSES_FIND(wrefresh)
  if (!(api->stdscr_pointer = (WINDOW **)dlsym(found, "stdscr"))) { *missing = "stdscr"; return -1; }
  if (!(api->lines_pointer = (int *)dlsym(found, "LINES"))) { *missing = "LINES"; return -1; }
  if (!(api->cols_pointer = (int *)dlsym(found, "COLS"))) { *missing = "COLS"; return -1; }
#undef CNCURSES_FIND
  library = found;
  return 0;
}

static inline SCREEN * cn_newterm(const char *type, FILE *out, FILE *in) { return cncurses_api()->f_newterm(type, out, in); }
static inline void cn_delscreen(SCREEN *screen) { cncurses_api()->f_delscreen(screen); }
static inline int cn_endwin(void) { return cncurses_api()->f_endwin(); }
static inline int cn_set_escdelay(int delay) { return cncurses_api()->f_set_escdelay(delay); }
static inline int cn_cbreak(void) { return cncurses_api()->f_cbreak(); }
static inline int cn_noecho(void) { return cncurses_api()->f_noecho(); }
static inline int cn_nonl(void) { return cncurses_api()->f_nonl(); }
static inline int cn_keypad(WINDOW *window, bool on) { return cncurses_api()->f_keypad(window, on); }
static inline int cn_nodelay(WINDOW *window, bool on) { return cncurses_api()->f_nodelay(window, on); }
static inline int cn_curs_set(int visibility) { return cncurses_api()->f_curs_set(visibility); }
// Whether the current terminal can move the cursor (terminfo `cup`): TERM=dumb cannot, and draws nothing usable.
static inline int cn_can_address_cursor(void) {
  char *cup = cncurses_api()->f_tigetstr("cup");
  return cup != NULL && cup != (char *)-1;
}
static inline int cn_def_prog_mode(void) { return cncurses_api()->f_def_prog_mode(); }
static inline int cn_reset_prog_mode(void) { return cncurses_api()->f_reset_prog_mode(); }
static inline int cn_refresh(void) { return cncurses_api()->f_refresh(); }
static inline int cn_resizeterm(int lines, int columns) { return cncurses_api()->f_resizeterm(lines, columns); }
static inline int cn_clearok(WINDOW *window, bool on) { return cncurses_api()->f_clearok(window, on); }
static inline int cn_wget_wch(WINDOW *window, wint_t *key) { return cncurses_api()->f_wget_wch(window, key); }
static inline int cn_wmove(WINDOW *window, int y, int x) { return cncurses_api()->f_wmove(window, y, x); }
static inline int cn_wclrtoeol(WINDOW *window) { return cncurses_api()->f_wclrtoeol(window); }
static inline int cn_wattr_on(WINDOW *window, attr_t attributes, void *options) { return cncurses_api()->f_wattr_on(window, attributes, options); }
static inline int cn_wattr_off(WINDOW *window, attr_t attributes, void *options) { return cncurses_api()->f_wattr_off(window, attributes, options); }
static inline int cn_waddnstr(WINDOW *window, const char *text, int count) { return cncurses_api()->f_waddnstr(window, text, count); }
static inline int cn_getcury(const WINDOW *window) { return cncurses_api()->f_getcury(window); }
static inline int cn_getcurx(const WINDOW *window) { return cncurses_api()->f_getcurx(window); }
static inline int cn_wrefresh(WINDOW *window) { return cncurses_api()->f_wrefresh(window); }

// Macros and globals Swift cannot import (function-like macros) or should not read as mutable globals.
static inline WINDOW *cncurses_stdscr(void) { return *cncurses_api()->stdscr_pointer; }
static inline int cncurses_lines(void) { return *cncurses_api()->lines_pointer; }
static inline int cncurses_columns(void) { return *cncurses_api()->cols_pointer; }
static inline int cncurses_attr_bold(void) { return (int)A_BOLD; }
static inline int cncurses_attr_reverse(void) { return (int)A_REVERSE; }
static inline int cncurses_attr_dim(void) { return (int)A_DIM; }
static inline int cncurses_attr_underline(void) { return (int)A_UNDERLINE; }
static inline int cncurses_key_code_yes(void) { return KEY_CODE_YES; }

/// Reads one key without waiting: 0 none, 1 a character (`*value` its code point), 2 a function key (`*value` its
/// KEY_ code).
static inline int cncurses_read_key(int *value) {
  wint_t key = 0;
  int kind = cn_wget_wch(cncurses_stdscr(), &key);
  *value = (int)key;
  if (kind == ERR) return 0;
  return kind == KEY_CODE_YES ? 2 : 1;
}

/// On a crash (a trap, a fault, an abort) the terminal is given back before the process dies of the signal, so a
/// shell is never left without echo in the alternate screen. endwin is not async-signal-safe, but the process is
/// ending anyway; the default action then runs.
static inline void cncurses_crash_handler(int signal_number) {
  if (cncurses_api()->f_endwin) cncurses_api()->f_endwin();
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
