import Foundation
import OfflineNewsModel

/// newsboat's `urls` file (its subscription list: `~/.newsboat/urls` or `~/.config/newsboat/urls`), read into the
/// same subscription list model as OPML (``OPMLDocument``), so that it is subscribed to as an OPML list is.
///
/// The format is newsboat's manual's (newsboat 2.21, "Tagging", "Scripts and Filters", "Query Feeds", "Using Double
/// Quotes"): one feed a line, `URL [TAG …]`; a line whose first character is `#` is a comment, and so is the rest
/// of a line from a token that starts with `#`; tokens are separated by blanks, and a token in double quotes may
/// hold blanks, `\"` and `\\` (and `\n`, `\r`, `\t`); outside quotes a backslash is itself. A tag `~TITLE` names the
/// feed; a tag starting with `!` hides it from newsboat's list (only its query feeds show it).
///
/// What becomes a subscription, and what is reported instead (as an issue naming the line, never dropped silently):
/// - an `http(s)` feed is subscribed to, named by its `~` tag when it has one, filed in a folder named by its first
///   other tag (newsboat's "first tag"; `~` and `!` tags are not tags there either). newsboat's tags are labels, any
///   number a feed, not a tree: the first is a folder, one level deep; tags after it are reported as not kept;
/// - the `!` (hidden) mark is reported: the feed is subscribed to and shown (sources here have no hidden state);
/// - `query:NAME:FILTER` (a feed made of newsboat's filter language), `exec:COMMAND` and `filter:COMMAND:URL` (feeds
///   made by running a program), and any other line, are reported and not subscribed to.
public enum NewsboatURLs {
  /// The entry kinds a newsboat `urls` line starts with (compared without regard to case).
  static let entryPrefixes = ["http://", "https://", "query:", "exec:", "filter:", "file://"]

  /// Whether `data` is a newsboat `urls` file, told by its content: UTF-8 text without NUL whose first line that is
  /// neither blank nor a `#` comment starts with an `http(s)://`, `file://`, `query:`, `exec:` or `filter:` entry
  /// (quoted or not).
  public static func recognizes(_ data: Data) -> Bool {
    guard !data.contains(0), let text = String(data: data, encoding: .utf8) else { return false }
    for line in lines(of: text) {
      let trimmed = line.text.drop { $0 == " " || $0 == "\t" }
      if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
      let entry = trimmed.hasPrefix("\"") ? trimmed.dropFirst() : trimmed
      return entryPrefixes.contains { entry.lowercased().hasPrefix($0) }
    }
    return false
  }

  /// Reads a newsboat `urls` file: its `http(s)` feeds in file order, with their titles and folders, and an issue
  /// for every line or part of a line that is not subscribed to (see ``NewsboatURLs``). Bytes that are not UTF-8
  /// are read as U+FFFD.
  ///
  /// - Parameter url: where the file is (named by every issue, with its 1-based line).
  /// - Returns: the list; its ``OPMLDocument/title`` is `nil`.
  public static func read(_ data: Data, url: URL) -> OPMLDocument {
    let text = String(decoding: data, as: UTF8.self)
    var subscriptions: [OPMLSubscription] = []
    var issues: [FeedIssue] = []
    func note(_ line: Int, _ text: String, _ message: String) {
      issues.append(FeedIssue(kind: .notSubscribed, feed: url, text: text, message: message, line: line))
    }
    for line in lines(of: text) {
      if line.text.hasPrefix("#") { continue }
      let words = tokens(of: line.text)
      guard let entry = words.first else { continue }
      let lowered = entry.lowercased()
      if lowered.hasPrefix("query:") {
        note(
          line.number, entry,
          "a newsboat query feed (articles chosen by its filter language); not subscribed: search with 'news search' "
            + "or list with 'news list --unread'")
        continue
      }
      if lowered.hasPrefix("exec:") || lowered.hasPrefix("filter:") {
        note(
          line.number, entry,
          "a feed newsboat makes by running a program (exec:/filter:); not subscribed: save the program's output to "
            + "a file and 'news import' it, or subscribe to the feed it reads")
        continue
      }
      guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), let feedURL = URL(string: entry),
        feedURL.isWebURL, feedURL.host?.isEmpty == false
      else {
        note(line.number, entry, "not an http(s) feed URL; not subscribed")
        continue
      }
      var title: String?
      var tags: [String] = []
      var hidden = false
      for tag in words.dropFirst() {
        if tag.hasPrefix("~") {
          title = String(tag.dropFirst())
        } else if tag.hasPrefix("!") {
          hidden = true
        } else {
          tags.append(tag)
        }
      }
      let folder = tags.first.map { [$0] } ?? []
      if hidden {
        note(
          line.number, entry,
          "hidden in newsboat ('!' tag: shown only by its query feeds); subscribed and shown here")
      }
      if tags.count > 1 {
        note(
          line.number, entry,
          "newsboat tags are labels, a source here has one folder: filed in '\(tags[0])' (its first tag); "
            + "not kept: " + tags.dropFirst().map { "'\($0)'" }.joined(separator: ", "))
      }
      let name = title.map { $0.collapsingWhiteSpace }.flatMap { $0.isEmpty ? nil : $0 }
      subscriptions.append(OPMLSubscription(title: name ?? NewsQuery.shown(feedURL), feedURL: feedURL, folder: folder))
    }
    return OPMLDocument(title: nil, subscriptions: subscriptions, issues: issues)
  }

  /// The lines of `text` (`\n`, `\r\n` or `\r` ends one), numbered from 1.
  static func lines(of text: String) -> [(number: Int, text: Substring)] {
    var result: [(number: Int, text: Substring)] = []
    var number = 0
    for line in text.split(
      omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
    {
      number += 1
      result.append((number, line))
    }
    return result
  }

  /// newsboat's tokens of a line (its `tokenize_quoted`): blank-separated, double-quoted tokens unescaped, and
  /// nothing from a token that starts with `#` on.
  static func tokens(of line: Substring) -> [String] {
    var tokens: [String] = []
    var index = line.startIndex
    let blanks: Set<Character> = [" ", "\t", "\u{0B}", "\u{0C}"]
    while index < line.endIndex {
      while index < line.endIndex, blanks.contains(line[index]) { index = line.index(after: index) }
      guard index < line.endIndex, line[index] != "#" else { break }
      var token = ""
      if line[index] == "\"" {
        index = line.index(after: index)
        while index < line.endIndex, line[index] != "\"" {
          if line[index] == "\\", line.index(after: index) < line.endIndex {
            index = line.index(after: index)
            switch line[index] {
            case "n": token.append("\n")
            case "r": token.append("\r")
            case "t": token.append("\t")
            default: token.append(line[index])
            }
          } else {
            token.append(line[index])
          }
          index = line.index(after: index)
        }
        if index < line.endIndex { index = line.index(after: index) }
      } else {
        while index < line.endIndex, !blanks.contains(line[index]) {
          token.append(line[index])
          index = line.index(after: index)
        }
      }
      tokens.append(token)
    }
    return tokens
  }
}
