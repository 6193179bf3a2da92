import LiveTableCore

/// The benchmarks' host of the app loop: it draws nothing (as Bubble Tea's
/// `nilRenderer`), and tells each drawn state to the benchmark. The
/// benchmarks press no key that suspends or quits.
///
/// Any program runs on it: the Hall of Fame and the viewer are measured on
/// the same loop and the same host.
@MainActor
final class BenchmarkHost<Program: AppProgram>: AppHost where Program.Message: TerminalMessage {
    /// The app's own size in the benchmarks: 100x30, as in the tmux tests.
    static var width: Int { 100 }
    static var height: Int { 30 }

    let loop: AppLoop<Program>
    private let didDraw: @MainActor (Program.State) -> Void

    /// Starts `program` from `state`, and sends the first resize, as the
    /// terminal host does.
    init(program: Program, state: Program.State, didDraw: @escaping @MainActor (Program.State) -> Void) {
        self.didDraw = didDraw
        loop = AppLoop(program: program, state: state)
        loop.start(host: self)
        loop.send(.resize(width: Self.width, height: Self.height))
    }

    func draw(_ screen: Screen) {
        didDraw(loop.state)
    }

    func suspend() { }

    func quit() { }
}
