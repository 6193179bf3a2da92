import XCTest
@testable import LiveTableCore

/// Values that come faster than the app handles them: only the latest of a
/// burst is handled.
final class LatestValueRelayTests: XCTestCase {
    // XCTest on Linux can not call @MainActor test methods; they run on
    // the main thread.
    func testBurstIsHandledOnceWithTheLatestValue() { MainActor.assumeIsolated {
        var handled: [Int] = []
        let relay = LatestValueRelay<Int> { handled.append($0) }
        for value in 1...100 {
            relay.send(value)
        }
        XCTAssertEqual(handled, [], "handled on the main queue's turn, not at once")
        let delivered = expectation(description: "delivered")
        DispatchQueue.main.async { delivered.fulfill() }
        wait(for: [delivered], timeout: 5)
        XCTAssertEqual(handled, [100])

        relay.send(101)
        let second = expectation(description: "second burst")
        DispatchQueue.main.async { second.fulfill() }
        wait(for: [second], timeout: 5)
        XCTAssertEqual(handled, [100, 101])
    } }

    func testValuesQueuedBeforeTheDeliveryAreCoalesced() { MainActor.assumeIsolated {
        var handled: [Int] = []
        let relay = LatestValueRelay<Int> { handled.append($0) }
        // Values that wait in the main queue behind the first one, as the
        // blocks of a busy observation do.
        relay.send(1)
        for value in 2...5 {
            DispatchQueue.main.async { relay.send(value) }
        }
        let done = expectation(description: "drained")
        DispatchQueue.main.async { DispatchQueue.main.async { done.fulfill() } }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(handled.last, 5)
        XCTAssertLessThan(handled.count, 5, "\(handled)")
    } }

    func testCancelledRelayHandlesNothing() { MainActor.assumeIsolated {
        var handled: [Int] = []
        let relay = LatestValueRelay<Int> { handled.append($0) }
        relay.send(1)
        relay.cancel()
        relay.send(2)
        let drained = expectation(description: "drained")
        DispatchQueue.main.async { drained.fulfill() }
        wait(for: [drained], timeout: 5)
        XCTAssertEqual(handled, [])
    } }
}
