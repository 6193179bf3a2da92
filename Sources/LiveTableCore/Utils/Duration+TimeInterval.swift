import Foundation

extension Duration {
    /// The duration in seconds, as `TimeInterval`s are.
    var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
