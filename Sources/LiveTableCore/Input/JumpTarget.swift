/// Where Home and End go.
enum JumpTarget: Equatable, Sendable {
    case first
    case last
}
