import CSQLite
import Foundation
import GRDB

// MARK: - Untrusted SQL

extension SQLiteDataSource {
    /// Makes a connection safe for SQL that the viewer did not write: the
    /// filters and queries a user types, and the views and triggers that
    /// the file holds.
    ///
    /// `sqlite3_stmt_readonly` is no safety boundary: a "read-only"
    /// statement may call a function with effects. Debian's SQLite is built
    /// with `SQLITE_ENABLE_FTS3_TOKENIZER`, whose two-argument
    /// `fts3_tokenizer(name, pointer)` replaces a tokenizer with any address
    /// (the next full-text search jumps there), and `load_extension` runs
    /// any library. So every connection of the viewer gets:
    ///
    /// - an authorizer (`SourceAuthorizer`) that allows reading, the
    ///   built-in functions that reading needs, and the viewer's own
    ///   PRAGMAs, and denies everything else;
    /// - `SQLITE_DBCONFIG_DEFENSIVE` (no writing of the schema or of shadow
    ///   tables even through a bug), `trusted_schema = OFF` (a view or a
    ///   trigger of the file may only call functions and read virtual
    ///   tables that SQLite marks innocuous: not an FTS table), the
    ///   two-argument `fts3_tokenizer` and `load_extension` off.
    ///
    /// Called from `Configuration.prepareDatabase`, when the connection
    /// opens and before it reads anything: every connection the viewer
    /// opens must be prepared with it, as `open(path:)` prepares its two.
    ///
    /// - throws: A `DatabaseError` when an option can not be set.
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
        // The same setting as SQLITE_DBCONFIG_TRUSTED_SCHEMA, said twice so
        // that it shows in the connection's own terms.
        try db.execute(sql: "PRAGMA trusted_schema = OFF")
        // Last: the authorizer denies PRAGMAs that set anything, and
        // replaces GRDB's. GRDB's records what a statement reads and writes,
        // for the observation of this connection's own writes and its
        // schema cache: a read-only connection has no writes, and the
        // viewer reads the schema with PRAGMAs, not with GRDB's cache.
        SourceAuthorizer.install(
            on: connection, pragmaNames: Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_pragma_list")))
    }
}
