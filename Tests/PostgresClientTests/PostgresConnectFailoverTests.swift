import Foundation
import LiveTableTestSupport
import PostgresClient
import XCTest

/// Several hosts, some behind a frozen path: a host given up after its
/// `connect_timeout` is the only one dropped, and libpq still makes its
/// own passes over the others (`target_session_attrs=prefer-standby`
/// tries every host for a standby first, then any). The test server is a
/// primary.
final class PostgresConnectFailoverTests: XCTestCase {
    /// A proxy to the cluster, frozen, and stopped when the test ends.
    private func frozenProxy(_ cluster: SharedCluster) throws -> FreezableProxy {
        let proxy = try FreezableProxy(to: cluster.port)
        addTeardownBlock { proxy.stop() }
        proxy.freeze()
        return proxy
    }

    /// A key/value string for the superuser on 127.0.0.1 at these ports,
    /// each host given up after 5 s: `connect_timeout` bounds the
    /// primary's handshake too (twice with prefer-standby), which a
    /// loaded machine may slow down; the test must not drop it.
    private func hosts(_ ports: [Int], _ options: String) -> String {
        "host=\(ports.map { _ in "127.0.0.1" }.joined(separator: ",")) "
            + "port=\(ports.map(String.init).joined(separator: ",")) "
            + "user=postgres dbname=postgres connect_timeout=5 \(options)"
    }

    /// libpq's first pass rejects the primary (not a standby), the frozen
    /// host after it times out: its second pass takes the primary.
    func testPreferStandbyTakesThePrimaryWhenTheHostAfterItTimesOut() throws {
        let cluster = try SharedCluster.get()
        let proxy = try frozenProxy(cluster)
        let connection = try PostgresConnection(
            hosts([cluster.port, proxy.port], "target_session_attrs=prefer-standby"),
            settings: ["password": cluster.password])
        XCTAssertEqual(connection.port, "\(cluster.port)")
        XCTAssertEqual(try connection.execute("SELECT 1").rows, [["1"]])
        XCTAssertEqual(proxy.acceptedConnections, 1, "the frozen host was tried again")
    }

    /// With `standby`, no host will do: libpq's message says why for
    /// each, the primary and the host that timed out, without the password.
    func testStandbyOnAPrimaryAndAFrozenHostSaysBoth() throws {
        let cluster = try SharedCluster.get()
        let proxy = try frozenProxy(cluster)
        XCTAssertThrowsError(try PostgresConnection(
            hosts([cluster.port, proxy.port], "target_session_attrs=standby"),
            settings: ["password": cluster.password])) { error in
            guard let error = error as? PostgresError else { return XCTFail("not a PostgresError") }
            XCTAssertEqual(error.kind, .connection)
            XCTAssertTrue(error.message.contains("port \(cluster.port) failed"), error.message)
            XCTAssertTrue(error.message.contains("not in hot standby mode"), error.message)
            XCTAssertTrue(error.message.contains("port \(proxy.port) failed"), error.message)
            XCTAssertTrue(error.message.contains("timeout expired"), error.message)
            XCTAssertFalse(error.message.contains(cluster.password), "the password reached the error")
        }
        XCTAssertEqual(proxy.acceptedConnections, 1, "the frozen host was tried again")
    }

    /// A frozen host first, the primary, another frozen host: each frozen
    /// host is tried once and given up, and neither the primary nor the
    /// last host is dropped with the first (the restart is not "the hosts
    /// after it"): prefer-standby ends on the primary.
    func testOnlyTheHostsThatTimedOutAreDropped() throws {
        let cluster = try SharedCluster.get()
        let first = try frozenProxy(cluster)
        let last = try frozenProxy(cluster)
        let connection = try PostgresConnection(
            hosts([first.port, cluster.port, last.port], "target_session_attrs=prefer-standby"),
            settings: ["password": cluster.password])
        XCTAssertEqual(connection.port, "\(cluster.port)")
        XCTAssertEqual(first.acceptedConnections, 1)
        XCTAssertEqual(last.acceptedConnections, 1)
    }

    /// Hosts told apart by name and port: the one that timed out is the
    /// one dropped. (Dropping the other, the first would be tried again.)
    func testTheHostThatTimedOutIsTheOneDropped() throws {
        let cluster = try SharedCluster.get()
        let first = try frozenProxy(cluster)
        let second = try frozenProxy(cluster)
        XCTAssertThrowsError(try PostgresConnection(
            "host=127.0.0.1,localhost port=\(first.port),\(second.port) user=postgres dbname=postgres "
            + "connect_timeout=2", settings: ["password": cluster.password])) { error in
            guard let error = error as? PostgresError else { return XCTFail("not a PostgresError") }
            XCTAssertTrue(error.message.contains("port \(first.port) failed: timeout expired"), error.message)
            XCTAssertTrue(error.message.contains("port \(second.port) failed: timeout expired"), error.message)
        }
        XCTAssertEqual(first.acceptedConnections, 1)
        XCTAssertEqual(second.acceptedConnections, 1)
    }
}

extension PostgresConnectFailoverTests {
    /// A forwarding proxy on 127.0.0.1 and a frozen one on 127.0.0.2, both
    /// on one port number (Linux routes all of 127.0.0.0/8 to the loopback
    /// interface), stopped when the test ends.
    private func proxiesOnOnePort(_ cluster: SharedCluster) throws -> (FreezableProxy, FreezableProxy) {
        // Another process may hold the port on 127.0.0.2: try a few.
        for _ in 0..<10 {
            let forwarding = try FreezableProxy(to: cluster.port)
            addTeardownBlock { forwarding.stop() }
            guard let frozen = try? FreezableProxy(to: cluster.port, address: "127.0.0.2", port: forwarding.port) else {
                continue
            }
            addTeardownBlock { frozen.stop() }
            frozen.freeze()
            return (forwarding, frozen)
        }
        throw POSIXError(.EADDRINUSE)
    }

    /// One host name with two addresses (`hostaddr`), on one port:
    /// `PQhost` and `PQport` are the same for both, only `PQhostaddr`
    /// tells which timed out. libpq's first pass rejects the primary at
    /// the first address (not a standby), the second times out: it is the
    /// one dropped, and the second pass takes the primary. (Dropping the
    /// first, the restart would try the frozen one alone and fail.)
    func testAnAddressThatTimedOutIsToldFromAnotherOfItsName() throws {
        let cluster = try SharedCluster.get()
        let (forwarding, frozen) = try proxiesOnOnePort(cluster)
        let connection = try PostgresConnection(
            "host=db,db hostaddr=127.0.0.1,127.0.0.2 port=\(forwarding.port) user=postgres dbname=postgres "
            + "connect_timeout=5 target_session_attrs=prefer-standby", settings: ["password": cluster.password])
        XCTAssertEqual(connection.host, "db")
        XCTAssertEqual(try connection.execute("SELECT 1").rows, [["1"]])
        // The first attempt's first pass, then the restart's two.
        XCTAssertEqual(forwarding.acceptedConnections, 3, "the primary was not tried by each pass")
        XCTAssertEqual(frozen.acceptedConnections, 1, "the frozen address was tried again")
    }
}
