extension BinaryInteger {
  /// `12,400`, `-1,234,567`: the number in decimal with its thousands grouped by commas, whatever the locale (for
  /// messages and reports, which read the same on every machine).
  package var groupedDigits: String {
    let digits = String(magnitude)
    var text = self < 0 ? "-" : ""
    for (index, digit) in digits.enumerated() {
      if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
      text.append(digit)
    }
    return text
  }
}
