// @testable: the host entries are the connection attempt's own.
@testable import PostgresClient
import XCTest

/// How a restarted connection attempt finds the host entry libpq was
/// trying (`PQhost`, `PQport`) and rebuilds the options without it. An
/// empty entry is libpq's default, which `PQhost` and `PQport` report
/// filled in: a Unix socket directory, libpq's default port.
final class PostgresHostEntriesTests: XCTestCase {
    private func entries(_ options: [(String, String)]) -> HostEntries {
        HostEntries(options)
    }

    func testAnEmptyHostEntryIsTheDefaultSocketDirectory() {
        let hosts = entries([("host", ",127.0.0.1"), ("port", "5433")])
        XCTAssertEqual(hosts.index(ofHost: "/var/run/postgresql", port: "5433", defaultPort: "5432", skipping: []), 0)
        XCTAssertEqual(hosts.index(ofHost: "127.0.0.1", port: "5433", defaultPort: "5432", skipping: []), 1)
        XCTAssertNil(hosts.index(ofHost: "db.example.com", port: "5433", defaultPort: "5432", skipping: []))
    }

    /// libpq 15's PQport reports an empty entry as given, libpq 17's as
    /// its default port.
    func testAnEmptyPortEntryIsTheDefaultPort() {
        let hosts = entries([("host", "db,db"), ("port", ",5433")])
        XCTAssertEqual(hosts.index(ofHost: "db", port: "", defaultPort: "5432", skipping: []), 0)
        XCTAssertEqual(hosts.index(ofHost: "db", port: "5432", defaultPort: "5432", skipping: []), 0)
        XCTAssertEqual(hosts.index(ofHost: "db", port: "5433", defaultPort: "5432", skipping: []), 1)
        XCTAssertNil(hosts.index(ofHost: "db", port: "5434", defaultPort: "5432", skipping: []))
    }

    /// An exact entry is preferred to a default one that may stand for it.
    func testANamedEntryIsPreferredToADefaultOne() {
        let hosts = entries([("host", ",/var/run/postgresql")])
        XCTAssertEqual(hosts.index(ofHost: "/var/run/postgresql", port: "5432", defaultPort: "5432", skipping: []), 1)
        XCTAssertEqual(hosts.index(ofHost: "/var/run/postgresql", port: "5432", defaultPort: "5432", skipping: [1]), 0)
    }

    /// With only `hostaddr`, PQhost reports the address.
    func testAnAddressEntryIsReportedByItsAddress() {
        let hosts = entries([("hostaddr", "10.0.0.1,10.0.0.2"), ("port", "5432")])
        XCTAssertEqual(hosts.index(ofHost: "10.0.0.2", port: "5432", defaultPort: "5432", skipping: []), 1)
    }

    /// One name with several addresses: PQhost reports the name for
    /// each, PQhostaddr which address; the address decides.
    func testEntriesOfOneNameAreToldApartByTheirAddresses() {
        let hosts = entries([("host", "db,db"), ("hostaddr", "10.0.0.1,10.0.0.2"), ("port", "5432")])
        XCTAssertEqual(hosts.index(ofHost: "db", port: "5432", address: "10.0.0.2", defaultPort: "5432", skipping: []), 1)
        XCTAssertEqual(hosts.index(ofHost: "db", port: "5432", address: "10.0.0.1", defaultPort: "5432", skipping: []), 0)
        XCTAssertNil(hosts.index(ofHost: "db", port: "5432", address: "10.0.0.1", defaultPort: "5432", skipping: [0]))
        XCTAssertNil(hosts.index(ofHost: "db", port: "5432", address: "10.0.0.3", defaultPort: "5432", skipping: []))
        // No address reported: the name and port decide, as before.
        XCTAssertEqual(hosts.index(ofHost: "db", port: "5432", address: "", defaultPort: "5432", skipping: []), 0)
    }

    /// Addresses are compared as numbers, libpq printing the one it
    /// reports its own way: IPv6 in any spelling, IPv4 too.
    func testAddressesAreComparedAsNumbers() {
        let hosts = entries([("host", "db,db,db"), ("hostaddr", "0:0:0:0:0:0:0:1,::2,127.0.0.1"), ("port", "5432")])
        XCTAssertEqual(hosts.index(ofHost: "db", port: "5432", address: "::2", defaultPort: "5432", skipping: []), 1)
        XCTAssertEqual(hosts.index(ofHost: "db", port: "5432", address: "::1", defaultPort: "5432", skipping: []), 0)
        XCTAssertTrue(HostEntries.Entry.isSameAddress("fe80::1", "FE80:0::1"))
        XCTAssertFalse(HostEntries.Entry.isSameAddress("::1", "127.0.0.1"))
        XCTAssertFalse(HostEntries.Entry.isSameAddress("10.0.0.1", "10.0.0.2"))
    }

    func testTheOptionsWithoutSomeEntriesKeepTheOthersInOrder() throws {
        let options = [("host", "a,b,c"), ("hostaddr", "10.0.0.1,,10.0.0.3"), ("port", "1,2,3"),
                       ("target_session_attrs", "prefer-standby")]
        let hosts = entries(options)
        let rest = try XCTUnwrap(hosts.options(options, without: [1]))
        XCTAssertEqual(rest.map(\.0), options.map(\.0))
        XCTAssertEqual(rest.map(\.1), ["a,c", "10.0.0.1,10.0.0.3", "1,3", "prefer-standby"])
        let last = try XCTUnwrap(hosts.options(options, without: [0, 2]))
        XCTAssertEqual(last.map(\.1), ["b", "", "2", "prefer-standby"])
        XCTAssertNil(hosts.options(options, without: [0, 1, 2]))
    }

    /// A single port serves every host, and stays as given.
    func testASinglePortIsKept() throws {
        let options = [("host", "a,b"), ("port", "5433")]
        let rest = try XCTUnwrap(entries(options).options(options, without: [0]))
        XCTAssertEqual(rest.map(\.1), ["b", "5433"])
    }
}
