"""Writes PATH: a CSV with a header and ROWS rows of people (id, name, email, born), about 60
bytes a row, for bench/load_csv/run.sh."""

import sys


def main():
    path, rows = sys.argv[1], int(sys.argv[2])
    with open(path, "w", encoding="utf-8") as f:
        f.write("id,name,email,born\n")
        for i in range(1, rows + 1):
            f.write(f'{i},"Person {i}",person{i}@example.com,{1950 + i % 60}\n')


if __name__ == "__main__":
    main()
