import CSQLite
import Foundation
import GRDB
import Synchronization

// MARK: - Authorizer

/// The authorizer of the viewer's connections: reads, an allow-list of
/// built-in functions, and read-only PRAGMAs; anything else fails to compile
/// with `SQLITE_AUTH`. An allow-list, not a deny-list: a SQLite built with
/// more functions (`fts3_tokenizer`, `rtreenode`) gets nothing new.
final class SourceAuthorizer: Sendable {
    enum Denial: Equatable {
        case function(String)
    /// A PRAGMA that sets, or that the list lacks.
        case pragma(name: String, argument: String?)
        /// A write, ATTACH, CREATE…
        case write

        var reason: String {
            switch self {
            case let .function(name):
                return "the function \(name)() is not allowed: livetable view only reads"
            case let .pragma(name, argument):
                return "PRAGMA \(name)\(argument.map { " = \($0)" } ?? "") is not allowed: livetable view only reads"
            case .write:
                return "only reading is allowed: livetable view never writes"
            }
        }
    }

    private let denial = Mutex<Denial?>(nil)
    /// `pragma_NAME` is the table-valued form of each that returns rows.
    private let pragmaNames: Set<String>
    /// The connection's own functions, besides `functions`.
    private let ownFunctions: Set<String>

    private init(pragmaNames: Set<String>, ownFunctions: Set<String>) {
        self.pragmaNames = pragmaNames
        self.ownFunctions = ownFunctions
    }

    /// By connection address: the callback's user data, alive as long as
    /// the connection may call it (an address is reused only after close).
    private static let registry = Mutex<[UInt: SourceAuthorizer]>([:])

    static func install(on connection: OpaquePointer, pragmaNames: Set<String>, ownFunctions: Set<String> = []) {
        let authorizer = SourceAuthorizer(pragmaNames: pragmaNames, ownFunctions: ownFunctions)
        registry.withLock { $0[UInt(bitPattern: connection)] = authorizer }
        sqlite3_set_authorizer(
            connection,
            { userData, action, first, second, _, _ in
                guard let userData else { return SQLITE_DENY }
                return Unmanaged<SourceAuthorizer>.fromOpaque(userData).takeUnretainedValue()
                    .authorize(action, first.map { String(cString: $0) }, second.map { String(cString: $0) })
            },
            Unmanaged.passUnretained(authorizer).toOpaque())
    }

    /// SQLite says only "not authorized"; the authorizer knows what it refused.
    static func lastDenial(in db: Database) -> Denial? {
        db.sqliteConnection.flatMap(lastDenial(on:))
    }

    static func lastDenial(on connection: OpaquePointer) -> Denial? {
        registry.withLock { $0[UInt(bitPattern: connection)] }?.lastDenial
    }

    var lastDenial: Denial? {
        denial.withLock { $0 }
    }

    private func authorize(_ action: Int32, _ first: String?, _ second: String?) -> Int32 {
        switch action {
        case SQLITE_READ:
            // `SELECT * FROM pragma_cache_size` compiles as a read and runs
            // the PRAGMA only when it steps: refused then, after a filter
            // was accepted, as a bare "not authorized". So refused here, by
            // name. (A file's table named like a PRAGMA's form is hidden too.)
            if let table = first?.lowercased(), table.hasPrefix("pragma_") {
                let name = String(table.dropFirst("pragma_".count))
                if pragmaNames.contains(name), !Self.pragmas.contains(name) {
                    return deny(.pragma(name: name, argument: nil))
                }
            }
            return SQLITE_OK
        case SQLITE_SELECT, SQLITE_RECURSIVE, SQLITE_TRANSACTION, SQLITE_SAVEPOINT:
            // Each read's transaction: a read-only connection can not write.
            return SQLITE_OK
        case SQLITE_UPDATE where first == "sqlite_master" || first == "sqlite_temp_master":
            // Asked of every statement that first reads an eponymous virtual
            // table (`json_each`) on a connection, and writes nothing: the
            // connection is read-only, and DEFENSIVE forbids schema writes.
            return SQLITE_OK
        case SQLITE_FUNCTION:
            let name = (second ?? "").lowercased()
            if Self.functions.contains(name) || ownFunctions.contains(name) { return SQLITE_OK }
            return deny(.function(second ?? "?"))
        case SQLITE_PRAGMA:
            let name = (first ?? "").lowercased()
            if second == nil ? Self.pragmas.contains(name) : Self.pragmasOfAName.contains(name) {
                return SQLITE_OK
            }
            return deny(.pragma(name: first ?? "?", argument: second))
        default:
            return deny(.write)
        }
    }

    private func deny(_ denial: Denial) -> Int32 {
        self.denial.withLock { $0 = denial }
        return SQLITE_DENY
    }

    // MARK: - Allow-lists

    /// Not `fts3_tokenizer`, `fts5`, `load_extension`, `sqlite_log`, nor the
    /// R-Tree debugging functions: they act on the process, not on values.
    static let functions: Set<String> = [
        // Core scalar functions.
        "abs", "changes", "char", "coalesce", "concat", "concat_ws", "format", "glob", "hex", "if",
        "ifnull", "iif", "instr", "last_insert_rowid", "length", "like", "likelihood", "likely",
        "lower", "ltrim", "max", "min", "nullif", "octet_length", "printf", "quote", "random",
        "randomblob", "replace", "round", "rtrim", "sign", "soundex", "sqlite_compileoption_get",
        "sqlite_compileoption_used", "sqlite_offset", "sqlite_source_id", "sqlite_version",
        "substr", "substring", "total_changes", "trim", "typeof", "unhex", "unicode", "unistr",
        "unistr_quote", "unlikely", "upper", "zeroblob", "regexp", "match",
        // Aggregate functions.
        "avg", "count", "group_concat", "string_agg", "sum", "total",
        "json_group_array", "json_group_object", "jsonb_group_array", "jsonb_group_object",
        // Date and time.
        "date", "time", "datetime", "julianday", "unixepoch", "strftime", "timediff",
        "current_date", "current_time", "current_timestamp",
        // JSON, and its operators.
        "json", "jsonb", "json_array", "jsonb_array", "json_array_length", "json_error_position",
        "json_extract", "jsonb_extract", "json_insert", "jsonb_insert", "json_object", "jsonb_object",
        "json_patch", "jsonb_patch", "json_pretty", "json_remove", "jsonb_remove", "json_replace",
        "jsonb_replace", "json_set", "jsonb_set", "json_type", "json_valid", "json_quote",
        "json_each", "json_tree", "jsonb_each", "jsonb_tree", "->", "->>",
        // Math.
        "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "ceiling", "cos",
        "cosh", "degrees", "exp", "floor", "ln", "log", "log10", "log2", "mod", "pi", "pow",
        "power", "radians", "sin", "sinh", "sqrt", "tan", "tanh", "trunc",
        // Window functions.
        "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead",
        "first_value", "last_value", "nth_value",
        // Full-text search, read side.
        "highlight", "snippet", "offsets", "matchinfo", "bm25",
    ]

    /// The viewer's own (`schema_version`, `data_version`) and a user's.
    static let pragmas: Set<String> = pragmasOfAName.union([
        "schema_version", "data_version", "user_version", "application_id", "page_count",
        "page_size", "freelist_count", "encoding", "journal_mode", "auto_vacuum",
        "compile_options", "collation_list", "database_list", "function_list", "module_list",
        "pragma_list", "foreign_keys", "trusted_schema", "query_only",
    ])

    /// Whose argument names what they read, and never sets anything: the
    /// schema reads of `TableSchema`.
    static let pragmasOfAName: Set<String> = [
        "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo",
        "foreign_key_list", "foreign_key_check", "integrity_check", "quick_check",
    ]
}
