import CLibPQ
import Foundation

/// libpq, loaded the first time a PostgreSQL connection or connection
/// string needs it, and never before.
/// Linked, libpq and its ~22 libraries (OpenSSL, Kerberos, LDAP…) cost every process 5.5 MB of peak
/// memory: CLibPQ loads it with `dlopen`, and its functions are trampolines (see CLibPQ.h).
enum LibPQ {
    /// The environment variable that names the libpq to load instead of
    /// `libpq.so.5`: a file (`/opt/postgresql/lib/libpq.so.5`), or
    /// one that does not exist, as the tests of a missing libpq do.
    static let libraryVariable = "LIVETABLE_LIBPQ"

    /// Loads libpq, once per process; later calls return or throw what
    /// the first one did.
    static func load() throws {
        try loaded.get()
    }

    /// Starts loading libpq on another thread, while the process does
    /// other work: the first connection waits for the rest of the 6–8 ms
    /// of the `dlopen` only.
    static func loadInBackground() {
        DispatchQueue.global(qos: .userInitiated).async { _ = try? load() }
    }

    /// One option of a libpq option list (`PQconninfo`,
    /// `PQconninfoParse`, `PQconndefaults`): its keyword, its value, and
    /// libpq's compiled-in default.
    struct Option {
        var keyword: String
        var value: String?
        var compiled: String?
    }

    /// The options of `list`, which is freed: nil (out of memory) is none.
    static func options(_ list: UnsafeMutablePointer<PQconninfoOption>?) -> [Option] {
        guard let list else { return [] }
        defer { PQconninfoFree(list) }
        var options: [Option] = []
        var option = list
        while let keyword = option.pointee.keyword {
            options.append(Option(
                keyword: String(cString: keyword),
                value: option.pointee.val.map { String(cString: $0) },
                compiled: option.pointee.compiled.map { String(cString: $0) }))
            option += 1
        }
        return options
    }

    // A static let is initialised once, thread-safely (swift_once): the
    // one dlopen, and the one registration of the exit gate.
    private static let loaded: Result<Void, PostgresError> = {
        let path = ProcessInfo.processInfo.environment[libraryVariable] ?? "libpq.so.5"
        if let failure = lt_libpq_open(path) {
            return .failure(PostgresError(
                kind: .connection,
                message: "PostgreSQL support needs libpq (libpq5): \(oneLine(String(cString: failure)))"))
        }
        // After the dlopen, which brought OpenSSL in: see ProcessExitGate.
        ProcessExitGate.shared.closeAtExit()
        return .success(())
    }()
}
