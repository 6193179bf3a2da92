import ArgumentParser

extension LiveTable {
    /// The subcommands of `livetable`, in the order `--help` lists them.
    /// Each lives in its own file.
    static let subcommands: [any ParsableCommand.Type] = [
        Demo.self,
        BenchCommand.self,
        ViewCommand.self,
    ]
}
