"""The bis-synth databases: ad-task operations and system operations, 16 days up to the anchor."""

import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

from biarena.db.sql_text import compose, placeholders

ANCHOR = datetime(2023, 1, 17, 20, 20, 15)
"""The clock anchor: BIS's evaluation time. Data runs from Monday 2023-01-02 00:00 to 20:00 on the anchor day."""
DAYS = 16

INDUSTRIES = ["games", "e-commerce", "finance", "education", "travel", "food"]
ADVERTISERS = ["Acme", "Blue Finch", "Cobalt", "Dune", "Ember", "Fjord", "Granite", "Harbor"]
OBJECTIVES = ["install", "purchase", "lead"]
STATUS = {"R": ("running", "投放中"), "P": ("paused", "已暂停"), "E": ("ended", "已结束")}
FILTERS = {
    "o_rta_filter": ("filtered by the advertiser's real-time API (RTA) response", "被广告主实时接口(RTA)过滤"),
    "budget_filter": ("filtered because the task's budget is spent", "因任务预算耗尽被过滤"),
    "freq_cap_filter": ("filtered by the frequency cap per user", "因用户频次控制被过滤"),
    "quality_filter": ("filtered by the ad quality score", "因广告质量分被过滤"),
    "blacklist_filter": ("filtered by a media blacklist", "因媒体黑名单被过滤"),
}
ABBREVIATIONS = {
    "CTR": ("click-through rate: clicks / impressions", "点击率：点击数 / 曝光数"),
    "CVR": ("conversion rate: conversions / clicks", "转化率：转化数 / 点击数"),
    "CPM": ("cost per thousand impressions", "千次曝光成本"),
}
SERVICES = {
    "payment service": ["10.11.11.1", "10.11.11.2"],
    "gateway": ["10.11.110.1", "10.11.110.2"],
    "database": ["10.12.14.1", "10.12.14.6"],
    "search": ["10.12.16.1", "10.12.16.3"],
}


def hours() -> list[datetime]:
    """Every whole hour from the first day to the anchor."""
    start = ANCHOR.replace(hour=0, minute=0, second=0) - timedelta(days=DAYS - 1)
    count = int((ANCHOR - start).total_seconds() // 3600) + 1
    return [start + timedelta(hours=h) for h in range(count)]


def _write(path: Path, schema: str, tables: dict[str, list[tuple]]) -> None:
    if path.exists():
        path.unlink()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA page_size = 4096")
    conn.executescript(schema)
    with conn:
        for table, rows in tables.items():
            if rows:
                insert = compose("INSERT INTO {table} VALUES ({marks})", table=table, marks=placeholders(len(rows[0])))
                conn.executemany(insert, rows)
    conn.close()


ADS_SCHEMA = """
CREATE TABLE task (
    task_id INTEGER PRIMARY KEY, task_name TEXT NOT NULL, advertiser TEXT NOT NULL, industry TEXT NOT NULL,
    objective TEXT NOT NULL, status TEXT NOT NULL, budget REAL NOT NULL, created_date TEXT NOT NULL);
CREATE TABLE metric_log (
    ts TEXT NOT NULL, task INTEGER NOT NULL REFERENCES task(task_id), impression INTEGER, click INTEGER,
    conversion INTEGER, cost REAL, ctr REAL, cvr REAL);
CREATE TABLE metric_log_predicted (
    ts TEXT NOT NULL, task INTEGER NOT NULL REFERENCES task(task_id), impression INTEGER, click INTEGER,
    conversion INTEGER, cost REAL, ctr REAL, cvr REAL);
CREATE TABLE pre_ranking_filter_log (
    timestamp TEXT NOT NULL, task_id INTEGER NOT NULL REFERENCES task(task_id), filter_key TEXT NOT NULL,
    filter_count INTEGER NOT NULL);
CREATE TABLE metadata_mapping (
    category TEXT NOT NULL, code TEXT NOT NULL, meaning TEXT NOT NULL, meaning_zh TEXT NOT NULL,
    PRIMARY KEY (category, code));
"""

OPS_SCHEMA = """
CREATE TABLE microservice (microservice TEXT NOT NULL, ip TEXT PRIMARY KEY);
CREATE TABLE cpu (timestamp TEXT NOT NULL, ip TEXT NOT NULL REFERENCES microservice(ip), cpu_util REAL);
CREATE TABLE memory (timestamp TEXT NOT NULL, ip TEXT NOT NULL REFERENCES microservice(ip), memory REAL);
"""


def build_ads(path: Path, seed: int) -> None:
    """Write the ad-task operations database."""
    rng = np.random.default_rng(seed)
    tasks = []
    for i in range(24):
        task_id = 1001 + i
        status = "R" if i % 5 else ("P" if i % 2 else "E")
        created = (ANCHOR - timedelta(days=int(20 + rng.integers(0, 60)))).strftime("%Y-%m-%d")
        tasks.append(
            (
                task_id,
                f"task_{task_id}",
                ADVERTISERS[i % len(ADVERTISERS)],
                INDUSTRIES[(i * 7) % len(INDUSTRIES)],
                OBJECTIVES[i % 3],
                status,
                float(1000 * (5 + i % 7)),
                created,
            )
        )
    scale = rng.lognormal(0.0, 0.5, len(tasks))
    base_ctr = rng.uniform(0.01, 0.05, len(tasks))
    base_cvr = rng.uniform(0.02, 0.12, len(tasks))
    real, predicted, filters = [], [], []
    filter_keys = list(FILTERS)
    timeline = hours()
    for moment in timeline:
        stamp = moment.strftime("%Y-%m-%d %H:%M:%S")
        daily = 0.6 + 0.8 * np.sin(np.pi * (moment.hour - 5) / 24) ** 2
        weekend = 0.8 if moment.weekday() >= 5 else 1.0
        for t, task in enumerate(tasks):
            if task[5] == "E" and moment.day > 12:
                continue  # ended tasks stop serving
            trend = 1.0 + (0.03 * (moment - timeline[0]).days if t % 4 == 0 else 0.0)
            impressions = int(rng.poisson(400 * scale[t] * daily * weekend * trend)) + 1
            clicks = int(rng.binomial(impressions, base_ctr[t]))
            conversions = int(rng.binomial(clicks, base_cvr[t])) if clicks else 0
            cost = round(impressions * 0.004 * (1 + 0.2 * rng.random()), 2)
            ctr = round(clicks / impressions, 4)
            cvr = round(conversions / clicks, 4) if clicks else 0.0
            real.append((stamp, task[0], impressions, clicks, conversions, cost, ctr, cvr))
            noise = rng.normal(1.0, 0.08)
            p_imp = max(1, int(impressions * noise))
            p_clicks = round(clicks * rng.normal(1.0, 0.1))
            p_conv = round(conversions * rng.normal(1.0, 0.15))
            predicted.append(
                (
                    stamp,
                    task[0],
                    p_imp,
                    max(0, p_clicks),
                    max(0, p_conv),
                    round(cost * noise, 2),
                    round(max(0, p_clicks) / p_imp, 4),
                    round(max(0, p_conv) / max(1, p_clicks), 4),
                )
            )
            if rng.random() < 0.3:
                key = filter_keys[int(rng.integers(0, len(filter_keys)))]
                filters.append((stamp, task[0], key, int(rng.integers(1, 200))))
    mapping = [("filter_key", k, en, zh) for k, (en, zh) in FILTERS.items()]
    mapping += [("status", k, en, zh) for k, (en, zh) in STATUS.items()]
    mapping += [("abbreviation", k, en, zh) for k, (en, zh) in ABBREVIATIONS.items()]
    _write(
        path,
        ADS_SCHEMA,
        {
            "task": tasks,
            "metric_log": real,
            "metric_log_predicted": predicted,
            "pre_ranking_filter_log": filters,
            "metadata_mapping": mapping,
        },
    )


def build_ops(path: Path, seed: int) -> None:
    """Write the system operations database."""
    rng = np.random.default_rng(seed + 1)
    services = [(name, ip) for name, ips in SERVICES.items() for ip in ips]
    cpu, memory = [], []
    load = {ip: rng.uniform(0.2, 0.6) for _, ip in services}
    for moment in hours():
        stamp = moment.strftime("%Y-%m-%d %H:%M:%S")
        busy = 1.0 + 0.4 * np.sin(np.pi * (moment.hour - 6) / 12)
        for _, ip in services:
            cpu.append((stamp, ip, round(float(np.clip(load[ip] * busy + rng.normal(0, 0.05), 0.01, 0.99)), 2)))
            memory.append((stamp, ip, round(float(np.clip(0.5 + 0.3 * load[ip] + rng.normal(0, 0.04), 0.05, 0.99)), 2)))
    _write(path, OPS_SCHEMA, {"microservice": services, "cpu": cpu, "memory": memory})
