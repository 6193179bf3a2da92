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
#include <wchar.h>
#include <ncursesw/curses.h>

// Swift cannot see function-like or computed macros: wrap the ones we use.

static inline int lt_getmaxy(WINDOW *win) { return getmaxy(win); }
static inline int lt_getmaxx(WINDOW *win) { return getmaxx(win); }

static inline attr_t lt_a_normal(void) { return A_NORMAL; }
static inline attr_t lt_a_bold(void) { return A_BOLD; }
static inline attr_t lt_a_reverse(void) { return A_REVERSE; }
static inline attr_t lt_a_dim(void) { return A_DIM; }
static inline attr_t lt_a_underline(void) { return A_UNDERLINE; }
static inline attr_t lt_color_pair(short pair) { return COLOR_PAIR(pair); }

static inline int lt_key_f(int n) { return KEY_F(n); }

#endif
