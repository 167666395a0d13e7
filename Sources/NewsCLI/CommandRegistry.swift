/// Every `news` command, once, in the order the overview lists them. The parser, `news help`, the overview and
/// docs/CLI.md's command table (checked by a test) all read this list.
enum CommandRegistry {
  static let commands: [any NewsCommand.Type] = [
    FetchCommand.self, ListCommand.self, ImportCommand.self, DeleteCommand.self, MarkReadCommand.self,
    BookmarkCommand.self, StatsCommand.self, CompactCommand.self, EntitiesCommand.self, RecordsCommand.self,
    SourcesCommand.self,
    AddCommand.self, RemoveCommand.self, SyncCommand.self, SearchCommand.self, ShowCommand.self, OpenCommand.self,
    ReadCommand.self, ExtractCommand.self, ServeCommand.self,
  ]

  /// The command called `name`, or `nil`.
  static func command(named name: String) -> (any NewsCommand.Type)? {
    commands.first { $0.name == name }
  }
}
