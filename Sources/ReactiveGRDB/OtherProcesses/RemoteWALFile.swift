import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A database file in WAL mode on a `RemoteFileSystem`: the commits that
/// other machines make to it can not be seen from this machine.
///
/// A WAL reader learns of new commits from the WAL index, the `-shm` file
/// that SQLite maps in memory. Machines do not share that memory through a
/// network or FUSE file system, so a reader here keeps reading the commits
/// it knew of. Only a rollback-journal file (`PRAGMA journal_mode=DELETE`)
/// can be followed from another machine. The watch of
/// `includingOtherProcesses(.fileEvents(onPollingFallback:))` gives this
/// description as its reason.
///
/// For example:
///
/// ```swift
/// if let file = RemoteWALFile(path: "/mnt/share/app.sqlite") {
///     print(file) // the database is in WAL mode on a FUSE file system (fuse), which...
/// }
/// ```
public struct RemoteWALFile: Error, Sendable, Hashable, CustomStringConvertible {
    /// The path of the database file.
    public let path: String
    /// The file system it is on.
    public let fileSystem: RemoteFileSystem

    /// The file at `path`, if it is a database in WAL mode (its header
    /// says so) on a `RemoteFileSystem`; nil otherwise, or when the file
    /// can not be read.
    ///
    /// - parameter path: The path of a database file.
    public init?(path: String) {
        guard let fileSystem = RemoteFileSystem(containingFileAt: path),
            Self.isInWALMode(DatabaseFileHeader.read(path: path, dropsCachedPage: true))
        else {
            return nil
        }
        self.path = path
        self.fileSystem = fileSystem
    }

    /// One line: what is wrong, and what to do.
    public var description: String {
        "the database is in WAL mode on a \(fileSystem), which does not share its -shm index "
            + "between machines: commits from other machines can not be seen "
            + "(use journal_mode=DELETE, or read it on the writer's machine)"
    }

    /// Whether the header of the database file at `path` says WAL mode: its
    /// bytes 18 and 19, the write and read versions, are 2. False when the
    /// file can not be read.
    ///
    /// The header is read through a descriptor that this process already
    /// holds on the file, when there is one: closing a descriptor of a file
    /// releases every POSIX lock the process holds on it, SQLite's
    /// included, and a writer that then finds the file unlocked may
    /// checkpoint and reset the WAL under the connections of this process.
    ///
    /// - parameter path: The path of a database file.
    public static func isInWALMode(path: String) -> Bool {
        isInWALMode(DatabaseFileHeader.read(path: path, dropsCachedPage: false))
    }

    private static func isInWALMode(_ header: [UInt8]?) -> Bool {
        guard let header else { return false }
        return header.starts(with: Array("SQLite format 3\0".utf8)) && header[18] == 2 && header[19] == 2
    }
}

/// The first bytes of a database file, read without closing a descriptor
/// that SQLite's locks depend on.
enum DatabaseFileHeader {
    /// - parameter dropsCachedPage: True on a file system that may cache
    ///   pages (FUSE without direct_io), which keeps serving the header it
    ///   read when a descriptor opened: the first page is dropped first.
    static func read(path: String, count: Int = 20, dropsCachedPage: Bool) -> [UInt8]? {
        var file = stat()
        guard stat(path, &file) == 0 else { return nil }
        if let descriptor = openDescriptor(device: file.st_dev, inode: file.st_ino) {
            if dropsCachedPage {
                // A whole page, or nothing is dropped.
                _ = posix_fadvise(descriptor, 0, off_t(sysconf(Int32(_SC_PAGESIZE))), POSIX_FADV_DONTNEED)
            }
            return read(descriptor, count: count)
        }
        // No descriptor of this process on the file: none of its locks to lose.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        return read(descriptor, count: count)
    }

    private static func read(_ descriptor: Int32, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, 0) }
        return read == count ? bytes : nil
    }

    /// A descriptor of this process open for reading on the file (`/proc/self/fd`).
    static func openDescriptor(device: dev_t, inode: ino_t) -> Int32? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        let own = dirfd(directory)
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let descriptor = Int32(name), descriptor != own else { continue }
            var file = stat()
            if fstat(descriptor, &file) == 0, file.st_dev == device, file.st_ino == inode,
                fcntl(descriptor, F_GETFL) & O_ACCMODE != O_WRONLY
            {
                return descriptor
            }
        }
        return nil
    }
}
