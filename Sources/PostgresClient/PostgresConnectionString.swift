import CLibPQ

/// A PostgreSQL connection string, read without connecting: the host,
/// port, database and user it names, for a title; and its redacted form,
/// for display.
package struct PostgresConnectionString: Sendable, Equatable {
    /// The host or hosts (`"db1,db2"`), or a Unix socket directory; nil when the string names none.
    package var host: String?
    package var port: String?
    package var databaseName: String?
    package var user: String?
    /// Every option the string sets, by libpq's keyword (`"sslmode"`…), except the password, which is
    /// never kept.
    package var options: [String: String]

    package init(_ string: String) throws {
        var options = try Self.parse(string)
        options["password"] = nil
        self.options = options
        host = options["host"] ?? options["hostaddr"]
        port = options["port"]
        databaseName = options["dbname"]
        user = options["user"]
    }

    package var displayName: String {
        let place = Self.place(host: host, port: port)
        switch (databaseName, place) {
        case let (name?, place?): return "\(name) on \(place)"
        case let (name?, nil): return name
        case let (nil, place?): return "PostgreSQL on \(place)"
        case (nil, nil): return "PostgreSQL"
        }
    }

    /// `"db1:5432,db2:5433"` from libpq's comma-separated lists.
    static func place(host: String?, port: String?) -> String? {
        guard let host, !host.isEmpty else { return nil }
        let hosts = host.split(separator: ",", omittingEmptySubsequences: false)
        let ports = (port ?? "").split(separator: ",", omittingEmptySubsequences: false)
        if port == nil || port == "" { return host }
        if ports.count == 1 { return hosts.map { "\($0):\(ports[0])" }.joined(separator: ",") }
        guard ports.count == hosts.count else { return host }
        return zip(hosts, ports).map { "\($0):\($1)" }.joined(separator: ",")
    }

    // MARK: - Redaction

    /// `string` with any password replaced by `***` (URL user info and query, key/value `password=`),
    /// even in strings libpq would refuse, so that whatever a user typed can be shown.
    package static func redacted(_ string: String) -> String {
        if isURI(string) {
            return redactingQueryPasswords(in: redactingUserInfo(in: string))
        }
        return redactingKeyValuePasswords(in: string)
    }

    /// Whether libpq reads `string` as a URL (`PQconnectdbParams`'s
    /// expand_dbname rule).
    static func isURI(_ string: String) -> Bool {
        string.hasPrefix("postgresql://") || string.hasPrefix("postgres://")
    }

    /// Whether libpq reads `string` as a connection string rather than a
    /// database name: a URL, or text with an `=`.
    static func isConnectionString(_ string: String) -> Bool {
        isURI(string) || string.contains("=")
    }

    /// Every option `string` sets, password included: libpq's own parse.
    static func parse(_ string: String) throws -> [String: String] {
        guard isConnectionString(string) else {
            return string.isEmpty ? [:] : ["dbname": string]
        }
        try LibPQ.load()
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let parsed = PQconninfoParse(string, &errorMessage) else {
            let raw = errorMessage.map { String(cString: $0) } ?? "invalid connection string"
            PQfreemem(errorMessage)
            let secrets = Secrets(passwords: [], unparsedConnectionString: string)
            throw PostgresError(kind: .usage, message: secrets.scrub(oneLine(raw)))
        }
        let given = LibPQ.options(parsed).compactMap { option in option.value.map { (option.keyword, $0) } }
        return Dictionary(given, uniquingKeysWith: { first, _ in first })
    }
}

// MARK: - Redaction helpers

/// Replaces the password of every `scheme://user:password@` in `text`.
func redactingUserInfo(in text: String) -> String {
    var result = ""
    var rest = text[...]
    while let schemeEnd = rest.firstRange(of: "://") {
        result += rest[..<schemeEnd.upperBound]
        rest = rest[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { "/?#".contains($0) || $0.isWhitespace } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@"),
           let colon = authority[..<at].firstIndex(of: ":")
        {
            result += rest[...colon] + "***"
            rest = rest[at...]
        }
    }
    return result + rest
}

private func redactingQueryPasswords(in uri: String) -> String {
    guard let question = uri.firstIndex(of: "?") else { return uri }
    let query = uri[uri.index(after: question)...]
    let parameters = query.split(separator: "&", omittingEmptySubsequences: false).map { parameter in
        guard let equal = parameter.firstIndex(of: "="),
              percentDecoded(parameter[..<equal]) == "password" else { return String(parameter) }
        return parameter[...equal] + "***"
    }
    return uri[...question] + parameters.joined(separator: "&")
}

/// Replaces the value of every `password = value` of a key/value string,
/// or of a message that may echo one. A quoted value ends at its closing
/// quote (backslash escapes it, as libpq reads it); a bare one at a space.
func redactingKeyValuePasswords(in text: String) -> String {
    var result = ""
    var rest = text[...]
    while let keyword = rest.firstRange(of: "password") {
        result += rest[..<keyword.upperBound]
        rest = rest[keyword.upperBound...]
        var cursor = rest.drop { $0 == " " }
        guard cursor.first == "=" else { continue }
        cursor = cursor.dropFirst().drop { $0 == " " }
        result += "=***"
        if cursor.first == "'" {
            var index = cursor.index(after: cursor.startIndex)
            while index < cursor.endIndex, cursor[index] != "'" {
                if cursor[index] == "\\" { index = cursor.index(after: index) }
                if index < cursor.endIndex { index = cursor.index(after: index) }
            }
            rest = index < cursor.endIndex ? cursor[cursor.index(after: index)...] : cursor[index...]
        } else {
            rest = cursor.drop { !$0.isWhitespace }
        }
    }
    return result + rest
}

private func percentDecoded(_ text: Substring) -> String {
    var bytes: [UInt8] = []
    var utf8 = text.utf8[...]
    while let byte = utf8.first {
        utf8 = utf8.dropFirst()
        if byte == UInt8(ascii: "%"), utf8.count >= 2,
           let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
        {
            bytes.append(value)
            utf8 = utf8.dropFirst(2)
        } else {
            bytes.append(byte)
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}

// MARK: - Secrets

/// What must never reach a message: the passwords a connection used or
/// was given. When a connection string could not be parsed, its password
/// is unknown: then every quoted fragment of a message that comes from the
/// string is cut too (libpq quotes the part it could not read).
struct Secrets: Sendable {
    var passwords: [String]
    var unparsedConnectionString: String?

    init(passwords: [String], unparsedConnectionString: String? = nil) {
        // Longest first, so that a password containing another is cut whole.
        self.passwords = Array(Set(passwords.filter { !$0.isEmpty })).sorted { $0.count > $1.count }
        self.unparsedConnectionString = unparsedConnectionString
    }

    /// `text` without any password.
    func scrub(_ text: String) -> String {
        var text = text
        for password in passwords {
            text = text.replacing(password, with: "***")
        }
        text = redactingKeyValuePasswords(in: redactingUserInfo(in: text))
        if let unparsedConnectionString {
            text = cuttingQuotedFragments(of: unparsedConnectionString, in: text)
        }
        return text
    }

    private func cuttingQuotedFragments(of source: String, in text: String) -> String {
        let parts = text.split(separator: "\"", omittingEmptySubsequences: false)
        return parts.enumerated().map { index, part in
            // Odd parts are inside quotes; keywords such as "dbname" stay.
            let isQuoted = index % 2 == 1 && index < parts.count - 1
            guard isQuoted, !part.isEmpty, source.contains(part),
                  !Self.keywords.contains(String(part)) else { return String(part) }
            return "…"
        }.joined(separator: "\"")
    }

    /// libpq's keywords, which its messages quote and which hold no secret.
    private static let keywords: Set<String> = {
        // Loaded by whoever made the secrets (a connection, a parse);
        // should it not be, the names are only missed, not a crash.
        guard (try? LibPQ.load()) != nil else { return [] }
        return Set(LibPQ.options(PQconndefaults()).map(\.keyword))
    }()
}
