// libpq's functions as trampolines to a libpq loaded with dlopen: see
// include/CLibPQ.h for why.

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

// The trampolines below are hidden: they bind the Swift code's calls inside
// this binary, and stay out of its dynamic symbol table, where they would
// take the place of libpq's own functions in libpq's calls to itself.
// (stdio.h, which libpq-fe.h includes, is included above, out of the
// pragma: libc's functions must stay default.)
#pragma GCC visibility push(hidden)
#include "CLibPQ.h"
#pragma GCC visibility pop

// Every libpq function the client calls: return type, name, parameters,
// arguments. A signature that differs from <libpq-fe.h> fails the build.
// A function PostgresClient starts to call is added here, or the link
// fails with an undefined PQ symbol.
#define LT_LIBPQ_FUNCTIONS(RETURNING, VOID) \
    RETURNING(int, PQbackendPID, (const PGconn *conn), (conn)) \
    RETURNING(int, PQcancel, (PGcancel *cancel, char *errbuf, int errbufsize), (cancel, errbuf, errbufsize)) \
    VOID(PQclear, (PGresult *res), (res)) \
    RETURNING(char *, PQcmdStatus, (PGresult *res), (res)) \
    RETURNING(char *, PQcmdTuples, (PGresult *res), (res)) \
    RETURNING(PQconninfoOption *, PQconndefaults, (void), ()) \
    RETURNING(PostgresPollingStatusType, PQconnectPoll, (PGconn *conn), (conn)) \
    RETURNING(PGconn *, PQconnectStartParams, \
        (const char *const *keywords, const char *const *values, int expand_dbname), \
        (keywords, values, expand_dbname)) \
    RETURNING(int, PQconnectionNeedsPassword, (const PGconn *conn), (conn)) \
    RETURNING(PQconninfoOption *, PQconninfo, (PGconn *conn), (conn)) \
    VOID(PQconninfoFree, (PQconninfoOption *connOptions), (connOptions)) \
    RETURNING(PQconninfoOption *, PQconninfoParse, (const char *conninfo, char **errmsg), (conninfo, errmsg)) \
    RETURNING(int, PQconsumeInput, (PGconn *conn), (conn)) \
    RETURNING(char *, PQdb, (const PGconn *conn), (conn)) \
    RETURNING(char *, PQerrorMessage, (const PGconn *conn), (conn)) \
    RETURNING(PGresult *, PQexecParams, \
        (PGconn *conn, const char *command, int nParams, const Oid *paramTypes, \
         const char *const *paramValues, const int *paramLengths, const int *paramFormats, \
         int resultFormat), \
        (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat)) \
    VOID(PQfinish, (PGconn *conn), (conn)) \
    RETURNING(int, PQflush, (PGconn *conn), (conn)) \
    RETURNING(char *, PQfname, (const PGresult *res, int field_num), (res, field_num)) \
    VOID(PQfreeCancel, (PGcancel *cancel), (cancel)) \
    VOID(PQfreemem, (void *ptr), (ptr)) \
    RETURNING(Oid, PQftype, (const PGresult *res, int field_num), (res, field_num)) \
    RETURNING(PGcancel *, PQgetCancel, (PGconn *conn), (conn)) \
    RETURNING(int, PQgetCopyData, (PGconn *conn, char **buffer, int async), (conn, buffer, async)) \
    RETURNING(PGresult *, PQgetResult, (PGconn *conn), (conn)) \
    RETURNING(int, PQgetisnull, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num)) \
    RETURNING(int, PQgetlength, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num)) \
    RETURNING(char *, PQgetvalue, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num)) \
    RETURNING(char *, PQhost, (const PGconn *conn), (conn)) \
    RETURNING(char *, PQhostaddr, (const PGconn *conn), (conn)) \
    RETURNING(int, PQisBusy, (PGconn *conn), (conn)) \
    RETURNING(int, PQnfields, (const PGresult *res), (res)) \
    RETURNING(PGnotify *, PQnotifies, (PGconn *conn), (conn)) \
    RETURNING(int, PQntuples, (const PGresult *res), (res)) \
    RETURNING(const char *, PQparameterStatus, (const PGconn *conn, const char *paramName), (conn, paramName)) \
    RETURNING(char *, PQpass, (const PGconn *conn), (conn)) \
    RETURNING(char *, PQport, (const PGconn *conn), (conn)) \
    RETURNING(int, PQputCopyEnd, (PGconn *conn, const char *errormsg), (conn, errormsg)) \
    RETURNING(char *, PQresultErrorField, (const PGresult *res, int fieldcode), (res, fieldcode)) \
    RETURNING(char *, PQresultErrorMessage, (const PGresult *res), (res)) \
    RETURNING(ExecStatusType, PQresultStatus, (const PGresult *res), (res)) \
    RETURNING(int, PQsendQuery, (PGconn *conn, const char *query), (conn, query)) \
    RETURNING(int, PQsendQueryParams, \
        (PGconn *conn, const char *command, int nParams, const Oid *paramTypes, \
         const char *const *paramValues, const int *paramLengths, const int *paramFormats, \
         int resultFormat), \
        (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat)) \
    RETURNING(int, PQserverVersion, (const PGconn *conn), (conn)) \
    RETURNING(PQnoticeProcessor, PQsetNoticeProcessor, \
        (PGconn *conn, PQnoticeProcessor proc, void *arg), (conn, proc, arg)) \
    RETURNING(int, PQsetSingleRowMode, (PGconn *conn), (conn)) \
    RETURNING(int, PQsetnonblocking, (PGconn *conn, int arg), (conn, arg)) \
    RETURNING(int, PQsocket, (const PGconn *conn), (conn)) \
    RETURNING(ConnStatusType, PQstatus, (const PGconn *conn), (conn)) \
    RETURNING(char *, PQuser, (const PGconn *conn), (conn))

// MARK: - The loaded library

#define LT_FIELD(type, name, parameters, arguments) type (*name) parameters;
#define LT_VOID_FIELD(name, parameters, arguments) void (*name) parameters;

// The real functions, filled once by lt_libpq_open.
struct lt_libpq_functions {
    LT_LIBPQ_FUNCTIONS(LT_FIELD, LT_VOID_FIELD)
};

static void *libpq_handle;
static struct lt_libpq_functions libpq_functions;
// Published (release) once every field is set; trampolines read it with
// acquire, so a thread that sees the table sees all of it.
static _Atomic(const struct lt_libpq_functions *) loaded_functions;

const char *lt_libpq_open(const char *path) {
    if (atomic_load_explicit(&loaded_functions, memory_order_acquire) != NULL) {
        return NULL;
    }
    // RTLD_NOW: a libpq that lacks a dependency fails here, not at a call.
    // RTLD_LOCAL: its symbols, and OpenSSL's, stay out of the process's
    // global namespace, where nothing else looks for them.
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        return dlerror();
    }
    // Every function resolved now: an old libpq that lacks one is an error
    // at load, not a crash at its first call.
#define LT_RESOLVE(name) \
    *(void **)&libpq_functions.name = dlsym(handle, #name); \
    if (libpq_functions.name == NULL) { \
        const char *error = dlerror(); \
        return error != NULL ? error : "libpq lacks " #name; \
    }
#define LT_RESOLVE_FIELD(type, name, parameters, arguments) LT_RESOLVE(name)
#define LT_RESOLVE_VOID_FIELD(name, parameters, arguments) LT_RESOLVE(name)
    LT_LIBPQ_FUNCTIONS(LT_RESOLVE_FIELD, LT_RESOLVE_VOID_FIELD)
    libpq_handle = handle;
    atomic_store_explicit(&loaded_functions, &libpq_functions, memory_order_release);
    return NULL;
}

void *lt_libpq_symbol(const char *name) {
    if (atomic_load_explicit(&loaded_functions, memory_order_acquire) == NULL) {
        return NULL;
    }
    // With a handle, dlsym searches libpq and the libraries it loaded.
    return dlsym(libpq_handle, name);
}

// MARK: - The trampolines

static const struct lt_libpq_functions *functions(void) {
    const struct lt_libpq_functions *loaded = atomic_load_explicit(&loaded_functions, memory_order_acquire);
    if (loaded == NULL) {
        // A call that skipped LibPQ.load(): a bug of PostgresClient's, not
        // a missing library, which load() reports as an error.
        fputs("livetable: libpq was called before it was loaded\n", stderr);
        abort();
    }
    return loaded;
}

#define LT_TRAMPOLINE(type, name, parameters, arguments) \
    type name parameters { return functions()->name arguments; }
#define LT_VOID_TRAMPOLINE(name, parameters, arguments) \
    void name parameters { functions()->name arguments; }
LT_LIBPQ_FUNCTIONS(LT_TRAMPOLINE, LT_VOID_TRAMPOLINE)
