#ifndef LIVETABLE_CNCURSES_SHIM_H
#define LIVETABLE_CNCURSES_SHIM_H

// SwiftPM drops pkg-config's -D_XOPEN_SOURCE, so ask for the wide-character
// API explicitly.
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif

#include <locale.h>
#include <langinfo.h>
#include <wchar.h>
#include <sys/ioctl.h>
#include <ncursesw/curses.h>
// setupterm and tigetstr: checking TERM before the screen is touched, and
// reading the reset sequences that a crash handler writes.
#include <ncursesw/term.h>

// Swift cannot see function-like or computed macros: wrap the ones we use.

static inline int lt_getmaxy(WINDOW *win) { return getmaxy(win); }
static inline int lt_getmaxx(WINDOW *win) { return getmaxx(win); }

static inline attr_t lt_a_normal(void) { return A_NORMAL; }
static inline attr_t lt_a_bold(void) { return A_BOLD; }
static inline attr_t lt_a_reverse(void) { return A_REVERSE; }
static inline attr_t lt_a_dim(void) { return A_DIM; }
static inline attr_t lt_a_underline(void) { return A_UNDERLINE; }

// Swift 6 rejects reading C's mutable globals: read them here.
static inline WINDOW *lt_stdscr(void) { return stdscr; }
static inline WINDOW *lt_curscr(void) { return curscr; }
static inline int lt_colors(void) { return COLORS; }

// The screen on the process's standard output and input, with the type
// from TERM. Unlike initscr, returns NULL instead of exiting on failure.
static inline SCREEN *lt_newterm(void) { return newterm(NULL, stdout, stdin); }

// The character encoding of the current locale ("UTF-8").
static inline const char *lt_codeset(void) { return nl_langinfo(CODESET); }

// ioctl is variadic, and TIOCGWINSZ a macro: read the real terminal size
// here. Returns 0 on success. (term.h defines `lines` and `columns` as
// macros: hence the parameter names.)
static inline int lt_window_size(int fd, int *height, int *width) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_row == 0 || size.ws_col == 0) {
        return -1;
    }
    *height = size.ws_row;
    *width = size.ws_col;
    return 0;
}

// tigetstr reports a missing capability as NULL and a name that is not a
// string capability as (char *)-1: fold both into NULL.
static inline const char *lt_tigetstr(const char *name) {
    char *value = tigetstr(name);
    return (value == (char *)-1) ? NULL : value;
}

#endif
