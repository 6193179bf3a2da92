import Foundation

extension PostgresConnection {
    /// A time by which something must have happened (the server's answer,
    /// a connection), as the timeout of the poll(2) that waits for it.
    package struct Deadline: Sendable, Equatable {
        /// The seconds it was set for, from when it was made: for a
        /// message ("no answer from the server for 1.5 s").
        package let seconds: TimeInterval
        package let time: DispatchTime

        package init(seconds: TimeInterval) {
            self.seconds = seconds
            time = .now() + seconds
        }

        package init(_ time: DispatchTime) {
            let now = DispatchTime.now().uptimeNanoseconds
            seconds = time.uptimeNanoseconds > now
                ? TimeInterval(time.uptimeNanoseconds - now) / 1_000_000_000 : 0
            self.time = time
        }

        /// The milliseconds left, rounded up, for poll(2): 0 once passed
        /// (and only then), so that a poll never returns before the time.
        package var milliseconds: Int32 {
            let now = DispatchTime.now().uptimeNanoseconds
            guard time.uptimeNanoseconds > now else { return 0 }
            return Int32(clamping: (time.uptimeNanoseconds - now + 999_999) / 1_000_000)
        }

        package var hasPassed: Bool {
            DispatchTime.now() >= time
        }

        static func earliest(_ first: Deadline?, _ second: Deadline?) -> Deadline? {
            guard let first, let second else { return first ?? second }
            return first.time <= second.time ? first : second
        }
    }
}
