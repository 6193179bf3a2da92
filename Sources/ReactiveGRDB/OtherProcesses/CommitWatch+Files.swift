import Dispatch
import Foundation
import GRDB
import Glibc

// MARK: - The files of a database

extension CommitWatch {
    /// The database file, its directory, and the names of the files that
    /// other processes write when they change the database at `path`; nil
    /// for a database in memory or a temporary one, which no other process
    /// can open.
    ///
    /// `path` is what GRDB gave SQLite: a path, relative or not, through
    /// links and `..`, or a `file:` URI. The file is the real one, where
    /// SQLite writes the journal and the WAL (next to the file a link
    /// points to).
    ///
    /// - throws: `FileChangeSourceError` if the file can not be found.
    static func watchedFiles(ofDatabaseAtPath path: String) throws -> (file: String, directory: String, names: Set<String>)? {
        guard let named = try namedFile(path) else { return nil }
        guard let real = realpath(named, nil) else {
            throw FileChangeSourceError(path: named, code: errno)
        }
        defer { free(real) }
        let file = URL(fileURLWithPath: String(cString: real))
        let name = file.lastPathComponent
        return (file.path, file.deletingLastPathComponent().path, [name, name + "-wal", name + "-journal"])
    }

    /// The file that `path` names, as SQLite reads it (https://sqlite.org/uri.html):
    /// a `file:` URI without its query and fragment, percent-decoded; nil
    /// for no file.
    fileprivate static func namedFile(_ path: String) throws -> String? {
        guard path.hasPrefix("file:") else {
            return path.isEmpty || path == ":memory:" ? nil : path
        }
        var rest = path.dropFirst("file:".count)
        if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            let query = rest[end...].prefix { $0 != "#" }.dropFirst()
            if query.split(separator: "&").contains("mode=memory") {
                return nil
            }
            rest = rest[..<end]
        }
        if rest.hasPrefix("//") {
            // SQLite accepts no authority but "localhost".
            let authority = rest.dropFirst(2).prefix { $0 != "/" }
            guard authority.isEmpty || authority == "localhost" else {
                throw FileChangeSourceError(path: path, code: EINVAL)
            }
            rest = rest.dropFirst(2 + authority.count)
        }
        guard let decoded = String(rest).removingPercentEncoding else {
            throw FileChangeSourceError(path: path, code: EINVAL)
        }
        return decoded.isEmpty || decoded == ":memory:" ? nil : decoded
    }

    static func format(_ interval: TimeInterval) -> String {
        interval < 1 ? "\(Int((interval * 1000).rounded())) ms" : "\(interval) s"
    }
}

// MARK: - File identity

/// A connection, not retained.
struct WeakReader {
    weak var reader: (any DatabaseReader)?

    init(_ reader: (any DatabaseReader)?) {
        self.reader = reader
    }
}

/// The device and inode of a file: another file at the same path, or the
/// same path on a new mount, has another identity. The viewer's too.
package struct FileIdentity: Equatable, Sendable {
    package var device: UInt64
    package var inode: UInt64

    package init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
