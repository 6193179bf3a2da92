#ifndef LIVETABLE_CSQLITE_SHIM_H
#define LIVETABLE_CSQLITE_SHIM_H

#include <sqlite3.h>

// Swift cannot call C's variadic functions: wrap the one we use.

/// Sets an integer option of `sqlite3_db_config` (SQLITE_DBCONFIG_DEFENSIVE,
/// SQLITE_DBCONFIG_TRUSTED_SCHEMA…) and returns the option as it is now
/// (-1 when SQLite does not know the option).
static inline int lt_sqlite3_db_config_int(sqlite3 *db, int option, int value) {
    int now = -1;
    if (sqlite3_db_config(db, option, value, &now) != SQLITE_OK) {
        return -1;
    }
    return now;
}

#endif
