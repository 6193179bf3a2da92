import ArgumentParser
import Dispatch
import Foundation
import LiveTableCore

/// `livetable demo`: the app walks a new user through its features.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Watch a walkthrough of the app, on a temporary database.",
        discussion: """
            Each step (populate, insert, edit, order, refresh, delete, stress test, \
            delete all) is announced by a caption in the status line, then played. \
            Any key skips to the next step; q or Ctrl-C quits. The step after the \
            stress test waits until its refreshes are over. Then the viewer \
            (livetable view) shows a temporary file that another connection writes \
            meanwhile, as another program would: new orders, which F follows at the \
            end, and orders that change status. The demo ends by itself after the \
            last step, and removes the temporary file.

            With --database, the demo plays on that file (created if missing) and \
            leaves it as the steps made it: with no player, since the last step \
            deletes them all. When the file already holds players, the demo first \
            asks on the terminal whether to play on them: y plays the steps, from \
            the insert step on (there is no empty table to populate); any other \
            answer quits, and nothing is written to the file.
            """)

    @OptionGroup var options: AppOptions

    @Option(help: ArgumentHelp("How fast the steps go: 1 is about 1.5 s per step, 2 twice as fast.", valueName: "x"))
    var speed: Double = 1

    /// The duration of a step at speed 1.
    static let stepDuration: TimeInterval = 1.5

    func validate() throws {
        guard speed.isFinite, speed > 0 else {
            throw ValidationError("--speed must be a positive number.")
        }
    }

    mutating func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let config = try Config.load(environment: environment)
        let launch = try Launch.prepare(environment: environment, noColor: options.noColor, config: config)
        let database: AppDatabase
        var playerCount = 0
        if let databasePath = options.databasePath {
            // The file is looked into, and the user asked, before it is
            // opened: opening it for the app writes to it.
            do {
                playerCount = try AppDatabase.playerCount(atPath: databasePath)
            } catch let error as AppDatabaseOpenError {
                throw CommandFailure(error.description, status: 1)
            }
            if let question = DemoScript.confirmation(path: databasePath, playerCount: playerCount),
               !Self.confirm(question)
            {
                return
            }
            database = try Launch.openDatabase(path: databasePath, seed: options.seed)
        } else {
            do {
                database = try AppDatabase.inMemory(seed: options.seed)
            } catch {
                throw CommandFailure("cannot create the demo database: \(error.oneLineDescription)", status: 1)
            }
        }
        // The viewer's file is made, and opened, before the app takes the
        // screen: what can fail fails here, in one line.
        let shop: DemoShop
        let viewer: SQLiteDataSource
        let viewed: ViewedSource
        do {
            shop = try DemoShop.make(in: FileManager.default.temporaryDirectory
                .appendingPathComponent("livetable-demo-\(getpid())"))
            viewer = try SQLiteDataSource.open(path: shop.path)
            viewed = try viewer.read { db in
                try ViewedSource.open(.table(DemoScript.viewerTable), sortColumn: nil, descending: false, in: db)
            }
        } catch {
            throw CommandFailure("cannot create the demo's file for the viewer: \(error.oneLineDescription)", status: 1)
        }
        let stepDuration = Self.stepDuration / speed
        let steps = DemoScript.steps(playerCount: playerCount)
        let polling = options.pollOption.polling(config)
        try launch.run(
            { terminal in
                AppLoop(
                    program: CaptionedProgram(HallOfFameProgram(database: database, polling: polling)),
                    state: Captioned(HallOfFameState.initial(
                        width: terminal.width, height: terminal.height, useColor: terminal.usesColor)))
            },
            close: {
                try? database.close()
                shop.close()
            },
            started: { runtime in
                let demo = DemoPlayer(part: .hallOfFame(steps: steps), stepDuration: stepDuration) { runtime in
                    Self.playViewer(after: runtime, shop: shop, database: viewer, viewed: viewed, stepDuration: stepDuration)
                }
                demo.start(runtime)
            })
    }

    /// Hands the terminal over to the viewer on the shop's file, starts
    /// the other connection's writes, and plays the viewer's steps.
    @MainActor
    private static func playViewer(
        after runtime: Runtime<CaptionedProgram<HallOfFameProgram>>, shop: DemoShop,
        database: SQLiteDataSource, viewed: ViewedSource, stepDuration: TimeInterval) -> AnyObject
    {
        shop.startWriting(every: 0.3)
        let demo = DemoPlayer(part: .viewer(steps: DemoScript.viewerSteps), stepDuration: stepDuration)
        let databaseName = (shop.path as NSString).lastPathComponent
        runtime.handOver(
            to: { terminal in
                AppLoop(
                    program: CaptionedProgram(ViewerProgram(dataSource: database)),
                    state: Captioned(ViewerState.initial(
                        databaseName: databaseName, opened: viewed,
                        width: terminal.width, height: terminal.height, useColor: terminal.usesColor)))
            },
            close: { shop.close() },
            started: { demo.start($0) })
        return demo
    }

    /// Asks `question` on the terminal, before the app takes the screen:
    /// true when the answer is y or yes.
    private static func confirm(_ question: String) -> Bool {
        FileHandle.standardOutput.write(Data("\(question) ".utf8))
        guard let answer = readLine() else {
            // End of input: no answer is no.
            FileHandle.standardOutput.write(Data("\n".utf8))
            return false
        }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}

/// A part of the demo: the steps of one program, which runs under the
/// demo's captions (`CaptionedProgram`), and how the demo player talks to
/// it.
struct DemoPart<Base: AppProgram> where Base.Message: TerminalMessage {
    /// The steps, in order.
    var steps: [(caption: String, messages: [Base.Message])]
    /// The action of a key in the program's key table.
    var isQuit: (Key) -> Bool
    var isSuspend: (Key) -> Bool
    /// True when the program is ready for the next step.
    var isReady: (Base.State) -> Bool
}

extension DemoPart where Base == HallOfFameProgram {
    /// The Hall of Fame's part: the next step waits for the stress test's
    /// end, since deleting all players while its refreshes are queued
    /// would let them populate the table again.
    static func hallOfFame(steps: [DemoStep<HallOfFameMessage>]) -> DemoPart {
        DemoPart(
            steps: steps.map { ($0.caption, $0.messages) },
            isQuit: { KeyBinding.action(for: $0) == .quit },
            isSuspend: { KeyBinding.action(for: $0) == .suspend },
            isReady: { !$0.isStressTestRunning })
    }
}

extension DemoPart where Base == ViewerProgram {
    /// The viewer's part.
    static func viewer(steps: [DemoStep<ViewerMessage>]) -> DemoPart {
        DemoPart(
            steps: steps.map { ($0.caption, $0.messages) },
            isQuit: { KeyBinding.action(for: $0, in: viewerKeyBindings) == .quit },
            isSuspend: { KeyBinding.action(for: $0, in: viewerKeyBindings) == .suspend },
            isReady: { _ in true })
    }
}

/// Plays the steps of a `DemoPart` through the app loop: each step's
/// caption, then its messages spread over the step, then the next step,
/// once the program is ready; after the last step, `next` (the next part),
/// or the end of the demo.
@MainActor
final class DemoPlayer<Base: AppProgram> where Base.Message: TerminalMessage {
    private typealias Program = CaptionedProgram<Base>
    private let part: DemoPart<Base>
    private let stepDuration: TimeInterval
    private unowned var runtime: Runtime<Program>!
    private var nextStep = 0
    /// The messages of the current step not sent yet.
    private var pending: [Program.Message] = []
    /// Bumped on each step, so that timers of a skipped step do nothing.
    private var generation = 0
    /// True while the next step waits for the program to be ready.
    private var isWaitingForReady = false
    /// Starts the next part after the last step, and returns its player,
    /// kept alive here; nil ends the demo.
    private var next: ((Runtime<Program>) -> AnyObject)?
    private var nextPlayer: AnyObject?

    /// Creates a player of `part`, followed by the part that `next` starts.
    init(
        part: DemoPart<Base>, stepDuration: TimeInterval,
        next: ((Runtime<CaptionedProgram<Base>>) -> AnyObject)? = nil)
    {
        self.part = part
        self.stepDuration = stepDuration
        self.next = next
    }

    /// Takes the keys of `runtime`, and plays the first step. The runtime
    /// keeps the player, through its key handler, for as long as it runs.
    func start(_ runtime: Runtime<CaptionedProgram<Base>>) {
        self.runtime = runtime
        runtime.interceptKeys { key in self.receive(key) }
        playNextStep()
    }

    /// Keys do not reach the app during the demo: the quit keys quit, Ctrl-Z
    /// suspends, any other key skips to the next step, once the program is
    /// ready (the stress test is over).
    private func receive(_ key: Key) {
        if part.isQuit(key) {
            runtime.exit(status: 0)
        } else if part.isSuspend(key) {
            runtime.loop.send(.key(key))
        } else {
            // The next step is already due: it starts when the program is
            // ready, not before.
            guard !isWaitingForReady else { return }
            // The rest of the step first, so that the app is in the state
            // the next step expects (an edit form closed, for example).
            while !pending.isEmpty {
                runtime.loop.send(pending.removeFirst())
            }
            playNextStep()
        }
    }

    /// Plays the next step, or ends the part, once the program is ready.
    private func playNextStep() {
        generation += 1
        isWaitingForReady = true
        let isReady = part.isReady
        runtime.loop.when({ isReady($0.base) }) { [unowned self] in
            isWaitingForReady = false
            playStep()
        }
    }

    private func playStep() {
        guard nextStep < part.steps.count else {
            runtime.loop.send(.caption(nil))
            if let next {
                self.next = nil
                generation += 1
                nextPlayer = next(runtime)
                return
            }
            runtime.exit(status: 0)
        }
        let step = part.steps[nextStep]
        nextStep += 1
        runtime.loop.send(.caption(step.caption))
        pending = step.messages.map(CaptionedMessage.base)
        // The caption shows alone for a while, then the messages follow
        // at a steady pace (typing, for the edit form), leaving time to
        // see the effect of the last one.
        let first = stepDuration * 0.3
        let spacing = pending.count > 1 ? stepDuration * 0.4 / Double(pending.count - 1) : 0
        for index in pending.indices {
            schedule(after: first + spacing * Double(index)) { [unowned self] in
                if !pending.isEmpty {
                    runtime.loop.send(pending.removeFirst())
                }
            }
        }
        schedule(after: stepDuration) { [unowned self] in
            playNextStep()
        }
    }

    private func schedule(after delay: TimeInterval, _ action: @escaping @MainActor () -> Void) {
        let generation = generation
        DispatchQueue.main.asyncAfter(deadline: .now() + delay) { [unowned self] in
            MainActor.assumeIsolated {
                if self.generation == generation {
                    action()
                }
            }
        }
    }
}
