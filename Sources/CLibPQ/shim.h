#ifndef LIVETABLE_CLIBPQ_SHIM_H
#define LIVETABLE_CLIBPQ_SHIM_H

// libpq, PostgreSQL's client library. pkg-config's -I/usr/include/postgresql
// finds the header.
#include <libpq-fe.h>

#endif
