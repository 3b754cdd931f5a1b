"""BIRD, Spider 1.0 and Spider 2.0-lite fixtures in their published layouts, built in a test's folder."""

import csv
import json
import sqlite3
from contextlib import closing
from pathlib import Path


def shop_db(path: Path) -> Path:
    """A tiny shop: customers and their orders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(path)) as conn:
        conn.executescript(
            """
            CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, city TEXT);
            CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id),
                                 amount REAL, status TEXT);
            INSERT INTO customers VALUES (1, 'Ada', 'Paris'), (2, 'Bo', 'Oslo'), (3, 'Cy', 'Paris');
            INSERT INTO orders VALUES (1, 1, 10.5, 'paid'), (2, 1, 20.0, 'paid'), (3, 2, 7.25, 'refunded'),
                                      (4, 3, 30.0, 'paid'), (5, 3, 5.0, 'open');
            """
        )
        conn.commit()
    return path


def club_db(path: Path) -> Path:
    """A tiny club: members and their ages."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(path)) as conn:
        conn.executescript(
            """
            CREATE TABLE member (id INTEGER PRIMARY KEY, name TEXT, age INTEGER);
            INSERT INTO member VALUES (1, 'Dee', 31), (2, 'Eli', 45), (3, 'Fay', 27);
            """
        )
        conn.commit()
    return path


BIRD_QUESTIONS = [
    {
        "question_id": 0,
        "db_id": "shop",
        "question": "How many paid orders are there?",
        "evidence": "paid refers to status = 'paid'",
        "SQL": "SELECT COUNT(*) FROM orders WHERE status = 'paid'",
        "difficulty": "simple",
    },
    {
        "question_id": 1,
        "db_id": "shop",
        "question": "Which customers live in Paris?",
        "evidence": "",
        "SQL": "SELECT name FROM customers WHERE city = 'Paris'",
        "difficulty": "simple",
    },
    {
        "question_id": 2,
        "db_id": "shop",
        "question": "What is the total paid amount per city?",
        "evidence": "paid refers to status = 'paid'; total amount refers to SUM(amount)",
        "SQL": "SELECT c.city, SUM(o.amount) FROM orders o JOIN customers c ON o.customer_id = c.id "
        "WHERE o.status = 'paid' GROUP BY c.city",
        "difficulty": "moderate",
    },
    {
        "question_id": 3,
        "db_id": "club",
        "question": "Who is the oldest member?",
        "evidence": "oldest refers to MAX(age)",
        "SQL": "SELECT name FROM member ORDER BY age DESC LIMIT 1",
        "difficulty": "challenging",
    },
]


def bird_layout(root: Path, questions: list[dict] | None = None, file: str = "dev.json") -> Path:
    """BIRD's dev layout: dev.json and dev_databases/<db>/<db>.sqlite with database_description/*.csv."""
    root.mkdir(parents=True, exist_ok=True)
    (root / file).write_text(json.dumps(BIRD_QUESTIONS if questions is None else questions, indent=2), "utf-8")
    shop_db(root / "dev_databases" / "shop" / "shop.sqlite")
    club_db(root / "dev_databases" / "club" / "club.sqlite")
    described = root / "dev_databases" / "shop" / "database_description"
    described.mkdir()
    with (described / "orders.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            ["original_column_name", "column_name", "column_description", "data_format", "value_description"]
        )
        writer.writerow(["status", "order status", "where the order stands", "text", "paid / refunded / open"])
        writer.writerow(["amount", "", "order amount in euros", "real", ""])
    # BIRD ships some descriptions in Windows-1252
    (described / "customers.csv").write_bytes(
        b"original_column_name,column_name,column_description,data_format,value_description\n"
        b"city,,town of the customer (e.g. Orl\xe9ans),text,\n"
    )
    return root


SPIDER_QUESTIONS = [
    ("shop", "How many customers are there?", "SELECT count(*) FROM customers"),
    ("shop", "List the names of customers in Paris.", "SELECT DISTINCT name FROM customers WHERE city = 'Paris'"),
    (
        "shop",
        "What is the total amount per customer name, largest first?",
        "SELECT T1.name, sum(T2.amount) FROM customers AS T1 JOIN orders AS T2 ON T1.id = T2.customer_id "
        "GROUP BY T1.name ORDER BY sum(T2.amount) DESC",
    ),
    (
        "club",
        "Names of members older than the average age.",
        "SELECT name FROM member WHERE age > (SELECT avg(age) FROM member)",
    ),
]


def spider_layout(root: Path, questions: list[tuple[str, str, str]] | None = None) -> Path:
    """Spider 1.0's layout: dev.json, tables.json, database/<db>/<db>.sqlite."""
    root.mkdir(parents=True, exist_ok=True)
    items = [{"db_id": d, "question": q, "query": s} for d, q, s in (questions or SPIDER_QUESTIONS)]
    (root / "dev.json").write_text(json.dumps(items, indent=2), "utf-8")
    tables = [
        {
            "db_id": "shop",
            "table_names_original": ["customers", "orders"],
            "table_names": ["customers", "orders"],
            "column_names_original": [[-1, "*"], [0, "id"], [0, "name"], [0, "city"], [1, "id"], [1, "customer_id"],
                                      [1, "amount"], [1, "status"]],
            "column_names": [[-1, "*"], [0, "id"], [0, "name"], [0, "city"], [1, "id"], [1, "customer id"],
                             [1, "amount"], [1, "status"]],
            "column_types": ["text", "number", "text", "text", "number", "number", "number", "text"],
            "foreign_keys": [[5, 1]],
            "primary_keys": [1, 4],
        },
        {
            "db_id": "club",
            "table_names_original": ["member"],
            "table_names": ["member"],
            "column_names_original": [[-1, "*"], [0, "id"], [0, "name"], [0, "age"]],
            "column_names": [[-1, "*"], [0, "id"], [0, "name"], [0, "age"]],
            "column_types": ["text", "number", "text", "number"],
            "foreign_keys": [],
            "primary_keys": [1],
        },
    ]
    (root / "tables.json").write_text(json.dumps(tables), "utf-8")
    shop_db(root / "database" / "shop" / "shop.sqlite")
    club_db(root / "database" / "club" / "club.sqlite")
    return root


SPIDER2_QUESTIONS = [
    {"instance_id": "local001", "db": "shop", "question": "Total paid amount per city.",
     "external_knowledge": None},
    {"instance_id": "bq001", "db": "ga360", "question": "Sessions per day in 2017.", "external_knowledge": None},
    {"instance_id": "local002", "db": "shop", "question": "Refund rate of each customer, as defined in the doc.",
     "external_knowledge": "refund_rate.md"},
    {"instance_id": "sf_bq003", "db": "PATENTS", "question": "Patents per year.", "external_knowledge": None},
    {"instance_id": "local003", "db": "club", "question": "The oldest member (name, age).",
     "external_knowledge": None},
]

SPIDER2_GOLD = {
    "local001.csv": "city,total\nOslo,0\nParis,60.5\n",
    "local002.csv": "name,refund_rate\nAda,0.0\nBo,1.0\nCy,0.0\n",
    # two accepted answers: the name alone, or name and age
    "local003_a.csv": "name\nEli\n",
    "local003_b.csv": "name,age\nEli,45\n",
}

SPIDER2_EVAL = [
    {"instance_id": "local001", "condition_cols": [1], "ignore_order": True, "toks": 0},
    {"instance_id": "local002", "condition_cols": [], "ignore_order": True, "toks": 0},
    {"instance_id": "local003", "condition_cols": [[0], [0, 1]], "ignore_order": False, "toks": 0},
    {"instance_id": "bq001", "condition_cols": [], "ignore_order": True, "toks": 0},
]


def spider2_lite_layout(root: Path, questions: list[dict] | None = None) -> Path:
    """Spider 2.0-lite's layout: spider2-lite.jsonl, resource/ and evaluation_suite/gold/."""
    root.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(item) for item in (SPIDER2_QUESTIONS if questions is None else questions)]
    (root / "spider2-lite.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    shop_db(root / "resource" / "databases" / "spider2-localdb" / "shop.sqlite")
    club_db(root / "resource" / "databases" / "spider2-localdb" / "club.sqlite")
    documents = root / "resource" / "documents"
    documents.mkdir(parents=True)
    (documents / "refund_rate.md").write_text(
        "# Refund rate\n\nThe refund rate of a customer is refunded orders divided by all their orders.\n", "utf-8"
    )
    gold = root / "evaluation_suite" / "gold"
    (gold / "exec_result").mkdir(parents=True)
    (gold / "sql").mkdir()
    for name, text in SPIDER2_GOLD.items():
        (gold / "exec_result" / name).write_text(text, "utf-8")
    (gold / "sql" / "local001.sql").write_text(
        "SELECT c.city, COALESCE(SUM(CASE WHEN o.status = 'paid' THEN o.amount END), 0) AS total\n"
        "FROM customers c LEFT JOIN orders o ON o.customer_id = c.id GROUP BY c.city ORDER BY c.city;\n",
        "utf-8",
    )
    (gold / "spider2lite_eval.jsonl").write_text("\n".join(json.dumps(e) for e in SPIDER2_EVAL) + "\n", "utf-8")
    return root
