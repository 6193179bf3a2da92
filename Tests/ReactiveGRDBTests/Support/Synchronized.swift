import Foundation
import XCTest

/// A value protected by a lock, that tests can wait on.
///
/// Publishers deliver on many queues: tests read and mutate their records
/// through this class, and wait until a condition holds instead of sleeping.
// @unchecked Sendable: `value` and `waiters` are only accessed with `lock` held.
final class Synchronized<Value>: @unchecked Sendable {
    private struct Waiter {
        let condition: (Value) -> Bool
        let expectation: XCTestExpectation
    }

    private var _value: Value
    private var waiters: [Waiter] = []
    private let lock = NSLock()

    init(_ value: Value) {
        _value = value
    }

    /// The current value.
    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return _value
    }

    /// Mutates the value, and fulfills the waiters whose condition now holds.
    func update(_ mutate: (inout Value) -> Void) {
        lock.lock()
        mutate(&_value)
        let value = _value
        var fulfilled: [XCTestExpectation] = []
        waiters.removeAll { waiter in
            guard waiter.condition(value) else { return false }
            fulfilled.append(waiter.expectation)
            return true
        }
        lock.unlock()
        fulfilled.forEach { $0.fulfill() }
    }

    /// Returns an expectation that is fulfilled as soon as `condition` holds.
    func expectation(
        description: String,
        until condition: @escaping (Value) -> Bool)
    -> XCTestExpectation
    {
        let expectation = XCTestExpectation(description: description)
        lock.lock()
        if condition(_value) {
            lock.unlock()
            expectation.fulfill()
        } else {
            waiters.append(Waiter(condition: condition, expectation: expectation))
            lock.unlock()
        }
        return expectation
    }
}

extension Synchronized where Value == Int {
    /// Adds one to the counter.
    func increment() {
        update { $0 += 1 }
    }
}

extension XCTestCase {
    /// Waits until `condition` holds, and returns the value that satisfies it.
    ///
    /// The main run loop runs during the wait, so that values published on the
    /// main queue are delivered. On timeout, the test fails with the
    /// current value.
    @discardableResult
    func wait<Value>(
        for synchronized: Synchronized<Value>,
        timeout: TimeInterval = defaultTimeout,
        file: StaticString = #filePath,
        line: UInt = #line,
        until condition: @escaping (Value) -> Bool)
    -> Value
    {
        let expectation = synchronized.expectation(description: "condition", until: condition)
        let result = XCTWaiter().wait(for: [expectation], timeout: timeout)
        let value = synchronized.value
        if result != .completed {
            XCTFail("Timed out waiting for a condition. Current value: \(value)", file: file, line: line)
        }
        return value
    }

    /// Waits until all `expectations` are fulfilled, and fails the test on
    /// timeout with `message`.
    func waitFor(
        _ expectations: [XCTestExpectation],
        timeout: TimeInterval = defaultTimeout,
        _ message: @autoclosure () -> String = "",
        file: StaticString = #filePath,
        line: UInt = #line)
    {
        let result = XCTWaiter().wait(for: expectations, timeout: timeout)
        if result != .completed {
            XCTFail("Timed out waiting for \(expectations.map(\.expectationDescription)). \(message())", file: file, line: line)
        }
    }
}

/// How long tests wait for an expected event. Generous, because the test
/// machine may be busy: waits end as soon as the event happens.
let defaultTimeout: TimeInterval = 10
