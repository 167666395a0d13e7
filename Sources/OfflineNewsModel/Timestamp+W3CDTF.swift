extension Timestamp {
  /// Parses a W3C-DTF date or date-time (the ISO 8601 profile of <https://www.w3.org/TR/NOTE-datetime>, which Atom,
  /// RSS 1.0's `dc:date` and Dublin Core use) into an instant.
  ///
  /// For example:
  /// ```swift
  /// Timestamp(w3cdtf: "2019-08-27")?.rfc3339String              // "2019-08-27T00:00:00.000Z"
  /// Timestamp(w3cdtf: "1997-07-16T19:20+01:00")?.rfc3339String  // "1997-07-16T18:20:00.000Z"
  /// ```
  ///
  /// Accepted: every form of ``init(rfc3339:assumingOffset:)``, and the reduced forms of W3C-DTF:
  /// - `YYYY` (1 January of the year) and `YYYY-MM` (the first of the month), at midnight UTC;
  /// - `YYYY-MM-DDThh:mmTZD`, a time without seconds.
  ///
  /// A time without a zone designator is read with `assumingOffset` (seconds east of UTC), and rejected when it is
  /// `nil`. Anything else returns `nil`; this initializer never traps.
  package init?(w3cdtf text: some StringProtocol, assumingOffset: Int? = nil) {
    // A date-time, or "YYYY-MM-DDThh:mm" followed by a zone designator (or nothing): the JSON readers' rule.
    guard text.utf8.count == 4 || text.utf8.count == 7 else {
      guard let timestamp = Timestamp(iso8601: text, assumingOffset: assumingOffset) else { return nil }
      self = timestamp
      return
    }
    let utf8 = Array(text.utf8)
    func isDigit(_ index: Int) -> Bool { utf8[index] &- 0x30 < 10 }
    guard (0..<4).allSatisfy(isDigit), utf8.count == 4 || (utf8[4] == 0x2D && isDigit(5) && isDigit(6)),
      let timestamp = Timestamp(rfc3339: text + (utf8.count == 4 ? "-01-01" : "-01"))
    else { return nil }
    self = timestamp
  }
}
