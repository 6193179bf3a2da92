import CFileSystem
import Foundation

/// A file system whose files other machines can write without this
/// machine's inotify seeing it: a network file system (NFS, SMB), a FUSE
/// file system (sshfs, LiteFS, virtiofs), a virtual machine's share (9p),
/// a cluster file system (Ceph, Lustre, GFS2).
///
/// inotify reports the writes that go through this machine's kernel. The
/// writes of another machine to a shared file, or those a FUSE daemon makes
/// behind its mount, make no event: `includingOtherProcesses(.fileEvents)`
/// checks the files of these file systems at an interval too.
///
/// The file system is told by the type that `statfs(2)` gives for the file
/// (`f_type`), looked up in `RemoteFileSystem.all`.
///
/// For example:
///
/// ```swift
/// if let fileSystem = RemoteFileSystem(containingFileAt: "/mnt/share/app.sqlite") {
///     print(fileSystem) // network file system (nfs)
/// }
/// ```
public struct RemoteFileSystem: Sendable, Hashable, CustomStringConvertible {
    /// What the file system is, as the description says it.
    public enum Kind: String, Sendable, Hashable {
        /// Files on a server: NFS, SMB, AFS...
        case network = "network file system"
        /// Files that a user-space daemon serves: sshfs, LiteFS, virtiofs...
        case fuse = "FUSE file system"
        /// Files shared by the nodes of a cluster: Ceph, Lustre, GFS2...
        case cluster = "cluster file system"
        /// Files that a virtual machine shares with its host.
        case virtualMachineShare = "virtual machine share"
    }

    /// The usual name of the file system type, as `mount` or
    /// `stat -f` calls it: "nfs", "fuse".
    public let name: String
    /// What the file system is.
    public let kind: Kind
    /// The `f_type` of `statfs(2)` for its files (the `*_MAGIC` constants
    /// of Linux's `<linux/magic.h>`, or the file system's own header).
    public let magic: UInt32

    /// "network file system (nfs)", "FUSE file system (fuse)".
    public var description: String {
        "\(kind.rawValue) (\(name))"
    }

    private init(_ name: String, _ kind: Kind, _ magic: UInt32) {
        self.name = name
        self.kind = kind
        self.magic = magic
    }

    /// The file system of the file at `path`, if it is one of `all`; nil
    /// for a local file system, or when `statfs(2)` fails (the file does
    /// not exist).
    ///
    /// For example:
    ///
    /// ```swift
    /// print(RemoteFileSystem(containingFileAt: "/tmp/app.sqlite") as Any) // nil: ext4, tmpfs
    /// ```
    ///
    /// - parameter path: The path of a file or a directory.
    public init?(containingFileAt path: String) {
        var type: UInt32 = 0
        guard lt_file_system_type(path, &type) == 0 else { return nil }
        self.init(magic: type)
    }

    /// The file system of type `magic`, if it is one of `all`.
    ///
    /// For example:
    ///
    /// ```swift
    /// print(RemoteFileSystem(magic: 0x6969) as Any) // network file system (nfs)
    /// ```
    ///
    /// - parameter magic: An `f_type` of `statfs(2)`.
    public init?(magic: UInt32) {
        guard let fileSystem = Self.all.first(where: { $0.magic == magic }) else { return nil }
        self = fileSystem
    }

    /// The file systems that can not report the writes of other machines.
    /// Several FUSE file systems share FUSE's type: sshfs, LiteFS, s3fs,
    /// rclone, GlusterFS's native client, virtiofs, and local ones such as
    /// ntfs-3g, which are checked at an interval too, since their type
    /// does not tell them apart.
    ///
    /// For example:
    ///
    /// ```swift
    /// print(RemoteFileSystem.all.map(\.name).contains("nfs")) // true
    /// ```
    public static let all: [RemoteFileSystem] = [
        // NFS_SUPER_MAGIC: NFS versions 2 to 4; the server or another
        // client writes.
        RemoteFileSystem("nfs", .network, 0x6969),
        // SMB_SUPER_MAGIC: the old smbfs client.
        RemoteFileSystem("smb", .network, 0x517B),
        // CIFS_SUPER_MAGIC: Windows and Samba shares (cifs.ko).
        RemoteFileSystem("cifs", .network, 0xFF53_4D42),
        // SMB2_SUPER_MAGIC: the same client, mounted as smb3.
        RemoteFileSystem("smb2", .network, 0xFE53_4D42),
        // AFS_SUPER_MAGIC: OpenAFS.
        RemoteFileSystem("afs", .network, 0x5346_414F),
        // AFS_FS_MAGIC: Linux's own AFS client (kAFS).
        RemoteFileSystem("kafs", .network, 0x6B41_4653),
        // CODA_SUPER_MAGIC: Coda.
        RemoteFileSystem("coda", .network, 0x7375_7245),
        // NCP_SUPER_MAGIC: NetWare.
        RemoteFileSystem("ncpfs", .network, 0x564C),
        // FUSE_SUPER_MAGIC: every FUSE file system (sshfs, LiteFS, s3fs,
        // rclone, bindfs, GlusterFS's native client, ntfs-3g) and virtiofs,
        // the virtual machines' shares over FUSE's protocol.
        RemoteFileSystem("fuse", .fuse, 0x6573_5546),
        // V9FS_MAGIC: 9P shares of QEMU, WSL 2 and gVisor.
        RemoteFileSystem("9p", .virtualMachineShare, 0x0102_1997),
        // VBOXSF_MAGIC: VirtualBox's shared folders.
        RemoteFileSystem("vboxsf", .virtualMachineShare, 0x786F_4256),
        // CEPH_SUPER_MAGIC: CephFS's kernel client.
        RemoteFileSystem("ceph", .cluster, 0x00C3_6400),
        // LL_SUPER_MAGIC: Lustre.
        RemoteFileSystem("lustre", .cluster, 0x0BD0_0BD0),
        // GFS2_MAGIC: GFS2 on shared block storage.
        RemoteFileSystem("gfs2", .cluster, 0x0116_1970),
        // OCFS2_SUPER_MAGIC: OCFS2 on shared block storage.
        RemoteFileSystem("ocfs2", .cluster, 0x7461_636F),
        // GPFS_SUPER_MAGIC: IBM Spectrum Scale.
        RemoteFileSystem("gpfs", .cluster, 0x4750_4653),
        // BEEGFS_MAGIC: BeeGFS.
        RemoteFileSystem("beegfs", .cluster, 0x1983_0326),
        // ORANGEFS_DEVREQ_MAGIC: OrangeFS (PVFS2).
        RemoteFileSystem("orangefs", .cluster, 0x2003_0528),
        // PANFS_SUPER_MAGIC: Panasas.
        RemoteFileSystem("panfs", .cluster, 0xAAD7_AAEA),
    ]
}
