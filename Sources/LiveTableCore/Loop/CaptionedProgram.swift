import OpenCombine

/// Any screen with a caption over its status line: the demo's captions,
/// on the Hall of Fame and on the viewer alike.
///
/// The program runs `Base` unchanged: its state, update, render and
/// effects. The caption is one more message, and the base program draws
/// it with `render(_:caption:)`: over the bottom line of its screen by
/// default (the viewer), or in its own status line (the Hall of Fame).
///
/// For example:
///
/// ```swift
/// let loop = AppLoop(
///     program: CaptionedProgram(ViewerProgram(dataSource: database)),
///     state: Captioned(viewerState))
/// loop.send(.caption("Another process writes the file"))
/// loop.send(.base(.key(.down)))
/// ```
public struct CaptionedProgram<Base: AppProgram>: AppProgram {
    /// The program that runs under the caption.
    public let base: Base

    /// Creates a program that runs `base` under a caption.
    public init(_ base: Base) {
        self.base = base
    }

    /// The base program's own commands.
    public func start() -> [AppCommand<CaptionedMessage<Base.Message>, Base.Slot>] {
        base.start().map(Self.lift)
    }

    /// Sets the caption, or applies a message of the base program.
    public func update(_ state: inout Captioned<Base.State>, _ message: CaptionedMessage<Base.Message>) -> [Base.Effect] {
        switch message {
        case let .caption(caption):
            state.caption = caption
            return []
        case let .base(message):
            return base.update(&state.base, message)
        }
    }

    /// The base screen, with the caption, if any, where the base program
    /// draws it.
    public func render(_ state: Captioned<Base.State>) -> Screen {
        guard let caption = state.caption else { return base.render(state.base) }
        return base.render(state.base, caption: caption)
    }

    /// The base program's command for `effect`, its messages wrapped.
    public func command(for effect: Base.Effect) -> AppCommand<CaptionedMessage<Base.Message>, Base.Slot> {
        Self.lift(base.command(for: effect))
    }

    private static func lift(
        _ command: AppCommand<Base.Message, Base.Slot>) -> AppCommand<CaptionedMessage<Base.Message>, Base.Slot>
    {
        switch command {
        case let .observe(slot, publisher):
            return .observe(slot: slot, publisher.map(CaptionedMessage.base).eraseToAnyPublisher())
        case let .perform(publisher):
            return .perform(publisher.map(CaptionedMessage.base).eraseToAnyPublisher())
        case .suspend:
            return .suspend
        case .quit:
            return .quit
        }
    }
}

extension AppProgram {
    /// The screen of `render(_:)`, its bottom line covered with `caption`:
    /// the caption of a screen that has no place for one of its own.
    ///
    /// For example:
    ///
    /// ```swift
    /// ViewerProgram(dataSource: database).render(state, caption: "Another program writes")
    /// ```
    public func render(_ state: State, caption: String) -> Screen {
        var screen = render(state)
        if screen.width > 2, screen.height > 0 {
            let y = screen.height - 1
            screen.fill(x: 0, y: y, width: screen.width, height: 1)
            screen.put(
                TextWidth.truncated(caption, toWidth: screen.width - 2), x: 1, y: y,
                style: CellStyle(color: .status))
        }
        return screen
    }
}

/// The state of a `CaptionedProgram`: the base program's state, and the
/// caption.
public struct Captioned<Base> {
    /// The base program's state.
    public var base: Base
    /// The caption over the status line, if any.
    public var caption: String?

    /// Creates a state without a caption.
    public init(_ base: Base, caption: String? = nil) {
        self.base = base
        self.caption = caption
    }
}

extension Captioned: Equatable where Base: Equatable { }
extension Captioned: Sendable where Base: Sendable { }

/// A message of a `CaptionedProgram`.
public enum CaptionedMessage<Base> {
    /// Shows this caption over the status line; nil removes it.
    case caption(String?)
    /// A message of the base program.
    case base(Base)
}

extension CaptionedMessage: Equatable where Base: Equatable { }
extension CaptionedMessage: Sendable where Base: Sendable { }

extension CaptionedMessage: TerminalMessage where Base: TerminalMessage {
    /// A key, for the base program.
    public static func key(_ key: Key) -> CaptionedMessage {
        .base(.key(key))
    }

    /// The terminal size, for the base program.
    public static func resize(width: Int, height: Int) -> CaptionedMessage {
        .base(.resize(width: width, height: height))
    }
}
