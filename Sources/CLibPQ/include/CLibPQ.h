#ifndef LIVETABLE_CLIBPQ_H
#define LIVETABLE_CLIBPQ_H

// libpq, PostgreSQL's client library: its declarations, and a loader.
//
// The binary does not link libpq: libpq and the ~22 libraries it needs
// (OpenSSL, Kerberos, LDAP…) would be mapped into every livetable process,
// 5.5 MB of peak memory, the Hall of Fame's and `livetable --help`'s too.
// lt_libpq_open loads it when a PostgreSQL source opens, and each libpq
// function the client calls is defined here, in LibPQ.c, as a trampoline to
// the loaded library: Swift calls PQexecParams as if libpq were linked.
//
// The header is libpq-dev's. Debian installs it under postgresql/, Fedora
// at the top of /usr/include: found either way without pkg-config, whose
// -lpq would link libpq again.
#if __has_include(<postgresql/libpq-fe.h>)
#include <postgresql/libpq-fe.h>
#else
#include <libpq-fe.h>
#endif

// Loads the libpq at `path` ("libpq.so.5", or a file) and every function
// the client calls. Returns NULL on success, else why it failed (dlerror's
// message, valid until the next call). Called once, by PostgresClient's
// LibPQ.load(), before any other libpq call: a trampoline called before a
// successful load aborts the process.
const char *lt_libpq_open(const char *path);

// A symbol of the loaded libpq or of a library it loaded (OpenSSL's
// OPENSSL_init_crypto…), which a RTLD_LOCAL load keeps out of the process's
// global namespace; NULL if there is none, or no libpq is loaded.
void *lt_libpq_symbol(const char *name);

#endif
