import CSQLite
import Foundation
import GRDB

// MARK: - Untrusted SQL

extension SQLiteDataSource {
    /// Makes a connection safe for SQL the viewer did not write: typed
    /// filters and queries, the file's views and triggers.
    ///
    /// `sqlite3_stmt_readonly` is no boundary: a "read-only" statement may
    /// call a function with effects. Debian's SQLite has the two-argument
    /// `fts3_tokenizer(name, pointer)`, which makes the next full-text search
    /// jump to any address, and `load_extension` runs any library. So: an
    /// authorizer that allows only reads, the functions they need and the
    /// viewer's own PRAGMAs; `SQLITE_DBCONFIG_DEFENSIVE`; `trusted_schema =
    /// OFF` (a view or trigger may only call innocuous functions); the
    /// tokenizer and `load_extension` off. The viewer's own aggregate of
    /// time buckets (`TimeBucketCounts`) is registered, direct only. Every
    /// connection the viewer opens must be prepared with it, before its
    /// first read.
    static func guardConnection(_ db: Database) throws {
        guard let connection = db.sqliteConnection else { return }
        let options: [(option: Int32, value: Int32, name: String)] = [
            (SQLITE_DBCONFIG_DEFENSIVE, 1, "SQLITE_DBCONFIG_DEFENSIVE"),
            (SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, "SQLITE_DBCONFIG_TRUSTED_SCHEMA"),
            (SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, "SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER"),
            (SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, "SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION"),
        ]
        for (option, value, name) in options where lt_sqlite3_db_config_int(connection, option, value) != value {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "cannot set \(name)")
        }
        // SQLITE_DBCONFIG_TRUSTED_SCHEMA again, in the connection's own terms.
        try db.execute(sql: "PRAGMA trusted_schema = OFF")
        guard TimeBucketCounts.register(on: connection) else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "cannot register \(TimeBucketCounts.name)")
        }
        // Last: the authorizer denies PRAGMAs that set anything. It replaces
        // GRDB's, which records reads and writes for GRDB's schema cache and
        // own-write observation: unused by a read-only connection.
        SourceAuthorizer.install(
            on: connection, pragmaNames: Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_pragma_list")),
            ownFunctions: [TimeBucketCounts.name])
    }
}
