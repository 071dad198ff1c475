int add3(int x) { return x + 3; }
