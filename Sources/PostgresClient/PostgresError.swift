import CLibPQ

/// An error from PostgreSQL or from libpq: one line, with the server's
/// SQLSTATE when there is one, and never a password.
package struct PostgresError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong, in the terms a caller acts on.
    package enum Kind: Sendable, Equatable {
        /// The server could not be reached, refused the connection, or the
        /// connection broke (server restarted, network down, session killed).
        case connection
        /// The server refused the role's credentials: a wrong or missing
        /// password, a role that may not log in, no pg_hba.conf entry.
        case authentication
        /// The statement ran out of time: the server's `statement_timeout`
        /// (SQLSTATE 57014 without a call to `cancel()`).
        case timeout
        /// The statement was stopped by ``PostgresConnection/cancel()``, or
        /// the connection attempt by its interrupt descriptor
        /// (``PostgresConnection/init(_:settings:timeout:interruptedBy:)``).
        case canceled
        /// The server refused or failed the statement: syntax, permissions,
        /// a write in a read-only transaction, a missing table…
        case query
        /// The caller asked for something libpq cannot send (a parameter
        /// holding a NUL character, a malformed connection string).
        case usage
    }

    package var kind: Kind
    /// The five-character SQLSTATE code the server sent ("42P01"), or nil
    /// when the error comes from libpq itself (a refused connection).
    package var sqlState: String?
    /// The primary message, on one line, without any password.
    package var message: String
    package var detail: String?
    package var hint: String?

    /// Makes an error. The message must already be free of passwords: the
    /// library's own errors go through its scrubbing.
    package init(
        kind: Kind, message: String, sqlState: String? = nil,
        detail: String? = nil, hint: String? = nil)
    {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
        self.detail = detail
        self.hint = hint
    }

    package var description: String { message }
}

// MARK: - Making errors from libpq

extension PostgresError {
    /// The error of a failed result, each text scrubbed of `secrets`.
    /// `canceled` tells a cancel asked by ``PostgresConnection/cancel()``
    /// from the server's statement timeout: both are SQLSTATE 57014.
    static func from(
        result: OpaquePointer?, connection: OpaquePointer?,
        secrets: Secrets, canceled: Bool) -> PostgresError
    {
        func field(_ code: Character) -> String? {
            guard let result, let ascii = code.asciiValue,
                  let text = PQresultErrorField(result, Int32(ascii)) else { return nil }
            return String(cString: text)
        }
        let sqlState = field("C")
        let primary = field("M")
            ?? result.flatMap { PQresultErrorMessage($0).map { String(cString: $0) } }
            ?? connection.flatMap { PQerrorMessage($0).map { String(cString: $0) } }
            ?? ""
        var kind = Kind.query
        if let sqlState {
            kind = Self.kind(ofSQLState: sqlState, canceled: canceled)
        } else if let connection, PQstatus(connection) != CONNECTION_OK {
            // No SQLSTATE and a dead connection: libpq lost the server.
            kind = .connection
        }
        return PostgresError(
            kind: kind,
            message: secrets.scrub(oneLine(primary)),
            sqlState: sqlState,
            detail: field("D").map { secrets.scrub(oneLine($0)) },
            hint: field("H").map { secrets.scrub(oneLine($0)) })
    }

    /// The error of a connection that failed to open or broke, from
    /// libpq's message. libpq reports no SQLSTATE for a refused login, so
    /// the authentication failures are told by their message (libpq's
    /// messages are not translated unless the client's locale asks).
    static func connectionFailure(_ connection: OpaquePointer?, secrets: Secrets) -> PostgresError {
        let raw = connection.flatMap { PQerrorMessage($0).map { String(cString: $0) } }
            ?? "out of memory"
        return connectionFailure(message: raw, secrets: secrets)
    }

    static func connectionFailure(message raw: String, secrets: Secrets) -> PostgresError {
        let message = secrets.scrub(oneLine(raw))
        let isAuthentication = authenticationMarkers.contains { message.contains($0) }
        return PostgresError(
            kind: isAuthentication ? .authentication : .connection,
            message: message,
            sqlState: isAuthentication ? "28P01" : nil)
    }

    /// The SQLSTATE classes that say the connection is gone or refused
    /// (Appendix A of PostgreSQL's manual).
    private static func kind(ofSQLState state: String, canceled: Bool) -> Kind {
        switch state {
        case "57014": return canceled ? .canceled : .timeout
        case "28000", "28P01": return .authentication
        case "57P01", "57P02", "57P03", "57P05": return .connection  // shutdown, crash, idle timeout
        default:
            return state.hasPrefix("08") ? .connection : .query
        }
    }

    private static let authenticationMarkers = [
        "password authentication failed",
        "no password supplied",
        "authentication failed",
        "no pg_hba.conf entry",
        "is not permitted to log in",
    ]
}

/// libpq's messages end with a newline and may hold several lines (one per
/// host tried, "FATAL:  " prefixes, a "LINE 1: …" context): one line, the
/// lines joined with "; ", the severity prefix dropped.
func oneLine(_ text: String) -> String {
    text.split(whereSeparator: \.isNewline)
        .map { line -> Substring in
            var line = line.drop { $0 == " " || $0 == "\t" }
            for prefix in ["FATAL:  ", "ERROR:  "] where line.hasPrefix(prefix) {
                line = line.dropFirst(prefix.count)
            }
            return line
        }
        .filter { !$0.isEmpty }
        .joined(separator: "; ")
        .replacing("failed: FATAL:  ", with: "failed: ")
        .replacing("\t", with: " ")
}
