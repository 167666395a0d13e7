/// The few lengths that statements over a list of values, or over many rows of values, are prepared for, so that
/// their texts repeat and stay prepared in the connection's cache (``Connection/cachedStatement(_:)``) instead of
/// being prepared again for every length.
///
/// Preparing costs in proportion to the text, and a statement on a table with triggers compiles the triggers too:
/// the article upsert of 50 rows with the search index's triggers takes about 2.9 million instructions to prepare
/// (`valgrind --tool=callgrind`), and a refresh of 12 feeds prepared 107 statements, 8 % of all it did.
///
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/prepare.html>,
/// <https://www.sqlite.org/limits.html#max_variable_number> (32,766 parameters since 3.32)
package enum StatementSizes {
  /// The most parameters one statement may have (`SQLITE_MAX_VARIABLE_NUMBER`'s default since SQLite 3.32).
  package static let parameterLimit = 32_766

  /// The length `count` things are padded to: the smallest power of two that holds them, at most `limit`; `count`
  /// itself when it is over `limit` (0 stays 0). `paddedCount(47, limit: 500)` is 64, `paddedCount(300, limit: 500)`
  /// is 500.
  package static func paddedCount(_ count: Int, limit: Int) -> Int {
    guard count > 1, count <= limit else { return count }
    var length = 1
    while length < count { length *= 2 }
    return min(length, limit)
  }
}

extension Connection {
  /// A statement whose text holds one list of values, `?LIST` (as in `url IN (?LIST)`), with its arguments: the
  /// list is padded to ``StatementSizes/paddedCount(_:limit:)`` values by repeating its last one, which changes no
  /// result of `IN (…)`, so the statement is one of a few texts and is taken from the cache (``cachedStatement(_:)``).
  ///
  /// - Parameters:
  ///   - sql: the statement, `?LIST` once where the list's placeholders go; `?1`…`?N` in it are `leading`'s values.
  ///   - leading: the values of the placeholders before the list (the list's are numbered after them).
  ///   - list: the list's values; empty gives `IN ()`, which SQLite reads as an empty list.
  /// - Returns: the statement and its arguments, `leading` then the padded list.
  /// - Throws: ``SQLiteError`` when the text does not prepare. A list too long to pad within
  ///   ``StatementSizes/parameterLimit`` is prepared for its own length and not cached.
  package func listStatement(_ sql: String, leading: [DatabaseValue] = [], list: [DatabaseValue]) throws(SQLiteError)
    -> (statement: Statement, arguments: [DatabaseValue])
  {
    let room = StatementSizes.parameterLimit - leading.count
    let length = StatementSizes.paddedCount(list.count, limit: room)
    let marks = (0..<length).map { "?\(leading.count + 1 + $0)" }.joined(separator: ", ")
    let text = sql.replacing("?LIST", with: marks)
    var arguments = leading + list
    if let last = list.last, length > list.count {
      arguments += repeatElement(last, count: length - list.count)
    }
    return (list.count <= room ? try cachedStatement(text) : try makeStatement(text), arguments)
  }
}
