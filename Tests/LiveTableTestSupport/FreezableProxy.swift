import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy on 127.0.0.1 (or another loopback address) to a local port,
/// whose forwarding can be frozen: data read is held, nothing is closed,
/// until `thaw()`, or for one connection `release(_:)`. It
/// stands for a path to the server that stops answering while the kernel
/// keeps the connection (a proxy or NAT box that stopped forwarding).
///
/// For example:
///
/// ```swift
/// let proxy = try FreezableProxy(to: server.port)
/// defer { proxy.stop() }
/// proxy.freeze()   // connections through proxy.port hang from now on
/// proxy.thaw()     // what was held goes through
/// ```
// @unchecked Sendable: every field is guarded by `condition`, but the
// listening socket and the port, set once.
public final class FreezableProxy: @unchecked Sendable {
    /// The port on `address` that forwards to the target.
    public let port: Int
    /// The IPv4 address it listens on: 127.0.0.1 unless told.
    public let address: String
    private let listener: Int32
    private let target: Int
    private let condition = NSCondition()
    private var isFrozen = false
    private var isStopped = false
    private var sockets: [Int32] = []
    private var threads = 0
    private var accepted = 0
    /// The connections forwarded while frozen, by their place in
    /// `acceptedConnections`.
    private var released: Set<Int> = []
    /// Each connection's two sockets, by its place.
    private var connections: [Int: [Int32]] = [:]

    /// Listens on `port` of `address` (a free one when 0), and forwards
    /// each connection to `target` on 127.0.0.1. Linux routes all of
    /// 127.0.0.0/8 to the loopback interface: two proxies may listen on
    /// one port number at 127.0.0.1 and 127.0.0.2.
    ///
    /// For example:
    ///
    /// ```swift
    /// let first = try FreezableProxy(to: server.port)
    /// let second = try FreezableProxy(to: server.port, address: "127.0.0.2", port: first.port)
    /// ```
    public init(to target: Int, address bound: String = "127.0.0.1", port requested: Int = 0) throws {
        self.target = target
        self.address = bound
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = Self.address(bound, port: requested)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard listener >= 0, bound == 0, listen(listener, 16) == 0 else {
            if listener >= 0 { close(listener) }
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        guard address.sin_port != 0 else {
            close(listener)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        spawn { [self] in acceptLoop() }
    }

    /// The connections accepted so far, frozen or not (a frozen proxy
    /// still accepts): a client's attempt has reached the proxy once it
    /// grew.
    public var acceptedConnections: Int {
        condition.withLock { accepted }
    }

    /// Waits until the proxy has accepted `count` connections in all, at
    /// most `timeout` seconds: whether it has.
    ///
    /// For example:
    ///
    /// ```swift
    /// XCTAssertTrue(proxy.waitForConnections(atLeast: 1, timeout: 20), "the attempt never reached the proxy")
    /// ```
    @discardableResult
    public func waitForConnections(atLeast count: Int, timeout: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        return condition.withLock {
            while accepted < count, condition.wait(until: deadline) {}
            return accepted >= count
        }
    }

    /// Stops forwarding; the connections stay open.
    public func freeze() {
        condition.withLock { isFrozen = true }
    }

    /// Forwards again, the data held first.
    public func thaw() {
        condition.withLock {
            isFrozen = false
            condition.broadcast()
        }
    }

    /// Forwards connection `index` (its place in `acceptedConnections`,
    /// from 0) though the proxy is frozen, what it held first.
    public func release(_ index: Int) {
        condition.withLock {
            released.insert(index)
            condition.broadcast()
        }
    }

    /// Closes connection `index` (its place in `acceptedConnections`, from
    /// 0) on both sides, as a server that went away does.
    public func drop(_ index: Int) {
        condition.withLock {
            for socket in connections[index] ?? [] { shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    /// Closes everything, once its threads are done with the sockets.
    public func stop() {
        condition.withLock {
            isStopped = true
            isFrozen = false
            condition.broadcast()
            shutdown(listener, Int32(SHUT_RDWR))
            for socket in sockets { shutdown(socket, Int32(SHUT_RDWR)) }
        }
        let deadline = Date(timeIntervalSinceNow: 5)
        condition.withLock {
            while threads > 0, condition.wait(until: deadline) {}
            for socket in sockets { close(socket) }
            sockets = []
        }
        close(listener)
    }

    private static func address(_ text: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr(text)
        return address
    }

    private func spawn(_ body: @escaping @Sendable () -> Void) {
        condition.withLock { threads += 1 }
        Thread { [self] in
            body()
            condition.withLock {
                threads -= 1
                condition.broadcast()
            }
        }.start()
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.address("127.0.0.1", port: target)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            let (stopped, index) = condition.withLock { () -> (Bool, Int) in
                sockets += [client, upstream]
                connections[accepted] = [client, upstream]
                accepted += 1
                condition.broadcast()
                return (isStopped, accepted - 1)
            }
            guard !stopped, connected == 0 else {
                shutdown(client, Int32(SHUT_RDWR))
                continue
            }
            spawn { [self] in pump(from: client, to: upstream, connection: index) }
            spawn { [self] in pump(from: upstream, to: client, connection: index) }
        }
    }

    /// Copies `from` to `to`, holding what it read while frozen; at the
    /// end of either side, ends both.
    private func pump(from source: Int32, to destination: Int32, connection index: Int) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = read(source, &buffer, buffer.count)
            guard count > 0 else { break }
            condition.withLock {
                while isFrozen, !released.contains(index) { condition.wait() }
            }
            var written = 0
            while written < count {
                let n = buffer.withUnsafeBytes { send(destination, $0.baseAddress! + written, count - written, Int32(MSG_NOSIGNAL)) }
                guard n > 0 else { break }
                written += n
            }
            guard written == count else { break }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(destination, Int32(SHUT_RDWR))
    }
}
