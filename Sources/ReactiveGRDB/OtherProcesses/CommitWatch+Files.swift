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

// MARK: - The change counter

/// The change counter of a rollback-journal file (bytes 24 to 27 of its
/// header), read without a lock: a check whose file kept the counter of
/// the last check asks no data version. Each commit of a writer makes
/// several reports of writes (the journal made, the database written, the
/// journal deleted); one check sees the commit, the others, each a read
/// transaction that may wait for the writer's lock, saw nothing.
///
/// Only on a local file: a network file system may serve a cached header
/// until a lock is taken. Only in rollback-journal mode: a WAL commit
/// leaves the header as it is.
struct ChangeCounter {
    private let device: dev_t
    private let inode: ino_t
    /// A descriptor that this process holds on the file (a connection's):
    /// opening one, then closing it, would release SQLite's locks.
    private var descriptor: Int32?
    /// Looked for in `/proc/self/fd` in vain: every check asks the data
    /// version, and none looks again.
    private var hasNoDescriptor = false
    /// The header's bytes 0 to 27, as the last check that asked the data version read them.
    var checkedHeader: [UInt8]?

    init?(path: String) {
        var file = stat()
        guard RemoteFileSystem(containingFileAt: path) == nil, stat(path, &file) == 0 else { return nil }
        device = file.st_dev
        inode = file.st_ino
    }

    /// The header's first 28 bytes, or nil when it can not be read, or
    /// does not count commits (WAL).
    mutating func header() -> [UInt8]? {
        if !hasNoDescriptor, descriptor.map(isOnTheFile) != true {
            descriptor = DatabaseFileHeader.openDescriptor(device: device, inode: inode)
            hasNoDescriptor = descriptor == nil
        }
        guard let descriptor else { return nil }
        var bytes = [UInt8](repeating: 0, count: 28)
        let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 28, 0) }
        // Closed and opened on another file meanwhile: a full check.
        guard read == 28, isOnTheFile(descriptor), bytes.starts(with: Array("SQLite format 3\0".utf8)),
            bytes[18] == 1, bytes[19] == 1
        else { return nil }
        return bytes
    }

    private func isOnTheFile(_ descriptor: Int32) -> Bool {
        var file = stat()
        return fstat(descriptor, &file) == 0 && file.st_dev == device && file.st_ino == inode
    }
}
