public enum P3 {}
