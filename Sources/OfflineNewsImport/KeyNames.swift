/// The keys an attribute or relationship is read from when its mapping gives no `from`.
enum KeyNames {
  /// `name`, then its PascalCase form, then its snake_case form, without repeats: `userId` → `userId`, `UserId`,
  /// `user_id`; `imageURL` → `imageURL`, `ImageURL`, `image_url`.
  static func defaults(for name: String) -> [String] {
    var keys = [name]
    if let first = name.first {
      let pascal = first.uppercased() + name.dropFirst()
      if !keys.contains(pascal) { keys.append(pascal) }
    }
    let snake = snakeCase(name)
    if !keys.contains(snake) { keys.append(snake) }
    return keys
  }

  /// The snake_case form of a camelCase name, as Swift's `JSONEncoder.KeyEncodingStrategy.convertToSnakeCase`
  /// writes it: words split where a lowercase letter meets an uppercase one, and before the last capital of an
  /// acronym followed by lowercase letters; then lowercased and joined with `_`.
  ///
  /// For example: `contractID` → `contract_id`, `imageURL` → `image_url`, `myURLProperty` → `my_url_property`,
  /// `userId` → `user_id`, `HTTPStatus` → `http_status`.
  ///
  /// Source: swift-foundation, `JSONEncoder.KeyEncodingStrategy._convertToSnakeCase` (the same rules, written over
  /// `Character`s: uppercase and lowercase are Unicode's letter properties).
  static func snakeCase(_ name: String) -> String {
    let characters = Array(name)
    guard characters.count > 1 else { return name.lowercased() }
    var words: [Range<Int>] = []
    var wordStart = 0
    var searchStart = 1
    func firstIndex(from start: Int, where predicate: (Character) -> Bool) -> Int? {
      var index = start
      while index < characters.count {
        if predicate(characters[index]) { return index }
        index += 1
      }
      return nil
    }
    while let upper = firstIndex(from: searchStart, where: \.isUppercase) {
      words.append(wordStart..<upper)
      guard let lower = firstIndex(from: upper, where: \.isLowercase) else {
        wordStart = upper
        searchStart = characters.count
        break
      }
      if lower == upper + 1 {
        // One capital then lowercase letters: a new word starts at the capital.
        wordStart = upper
      } else {
        // A run of capitals (an acronym): it is a word, up to the capital before the lowercase letters.
        words.append(upper..<(lower - 1))
        wordStart = lower - 1
      }
      searchStart = lower + 1
    }
    words.append(wordStart..<characters.count)
    return words.filter { !$0.isEmpty }.map { String(characters[$0]).lowercased() }.joined(separator: "_")
  }
}
