print("news-bench: not yet")
