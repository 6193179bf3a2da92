/// Where Home and End go.
///
/// For example:
///
/// ```swift
/// if state.pendingJump == .last { print("waiting for the last rows") }
/// ```
enum JumpTarget: Equatable, Sendable {
    /// The first row of the ordering.
    case first
    /// The last row of the ordering.
    case last
}
