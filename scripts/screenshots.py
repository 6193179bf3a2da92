#!/usr/bin/env python3
"""Screenshots of livetable: real runs in tmux, rendered to PNG.

Each screenshot starts the app in its own tmux server on a database made for
it, sends keys, waits until the screen shows what the picture is about, then
captures the pane with its colours (`capture-pane -p -e`). pyte replays the
capture on a virtual terminal, and Pillow draws its cells with DejaVu Sans
Mono. Run it through scripts/screenshots.sh, which installs pyte and Pillow.
"""

import argparse
import os
import random
import re
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import time
import uuid

import pyte
from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 100, 30
FONT_SIZE = 16
FONT_DIR = "/usr/share/fonts/truetype/dejavu"

# A dark theme: the 16 ANSI colours, and the default foreground/background.
BACKGROUND = "#1d2021"
FOREGROUND = "#d5c4a1"
ANSI = {
    "black": "#282828", "red": "#fb4934", "green": "#b8bb26", "brown": "#fabd2f",
    "blue": "#83a598", "magenta": "#d3869b", "cyan": "#8ec07c", "white": "#ebdbb2",
    "brightblack": "#7c6f64", "brightred": "#fb4934", "brightgreen": "#b8bb26",
    "brightbrown": "#fabd2f", "brightblue": "#83a598", "brightmagenta": "#d3869b",
    "brightcyan": "#8ec07c", "brightwhite": "#fbf1c7",
}
# A light terminal, for the light theme (gruvbox light).
LIGHT = {
    "background": "#fbf1c7", "foreground": "#3c3836",
    "black": "#3c3836", "red": "#9d0006", "green": "#79740e", "brown": "#b57614",
    "blue": "#076678", "magenta": "#8f3f71", "cyan": "#427b58", "white": "#7c6f64",
    "brightblack": "#928374", "brightred": "#9d0006", "brightgreen": "#79740e",
    "brightbrown": "#b57614", "brightblue": "#076678", "brightmagenta": "#8f3f71",
    "brightcyan": "#427b58", "brightwhite": "#282828",
}
# Names for the players of the big database: the app's own random names.
NAMES = [
    "Arthur", "Anita", "Barbara", "Bernard", "Craig", "Chiara", "David", "Dean", "Éric", "Elena",
    "Fatima", "Frederik", "Gilbert", "Georgette", "Henriette", "Hassan", "Ignacio", "Irene",
    "Julie", "Jack", "Karl", "Kristel", "Louis", "Liz", "Masashi", "Mary", "Noam", "Nicole",
    "Ophelie", "Oleg", "Pascal", "Patricia", "Quentin", "Quinn", "Raoul", "Rachel", "Stephan",
    "Susie", "Tristan", "Tatiana", "Ursule", "Urbain", "Victor", "Violette", "Wilfried",
    "Wilhelmina", "Yvon", "Yann", "Zazie", "Zoé",
]


class Tmux:
    """A tmux server of its own, running livetable in a detached window."""

    def __init__(self, command, env):
        self.socket = os.path.join(tempfile.gettempdir(), f"livetable-shot-{uuid.uuid4().hex[:8]}.sock")
        full_env = dict(os.environ, **env)
        full_env.pop("NO_COLOR", None)
        self.run("new-session", "-d", "-s", "app", "-x", str(WIDTH), "-y", str(HEIGHT), command, env=full_env)
        self.run("set-option", "-g", "remain-on-exit", "on")

    def run(self, *args, env=None):
        return subprocess.run(
            ["tmux", "-S", self.socket, "-f", "/dev/null", *args],
            check=True, capture_output=True, text=True, env=env,
            stdin=subprocess.DEVNULL).stdout

    def keys(self, *keys):
        self.run("send-keys", "-t", "app", *keys)

    def text(self, literal):
        self.run("send-keys", "-t", "app", "-l", literal)

    def screen(self):
        return self.run("capture-pane", "-p", "-t", "app")

    def capture(self):
        # -N: the trailing blanks too, so that a bar or a band drawn across
        # the whole line shows to its end.
        return self.run("capture-pane", "-p", "-e", "-N", "-t", "app")

    def wait(self, predicate, what, timeout=10.0, poll=0.01):
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if predicate(screen):
                return screen
            if time.monotonic() > deadline:
                raise RuntimeError(f"timed out waiting for {what}:\n{screen}")
            time.sleep(poll)

    def wait_for(self, text, timeout=10.0):
        return self.wait(lambda screen: text in screen, repr(text), timeout)

    def kill(self):
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True)
        # tmux leaves the socket file behind.
        if os.path.exists(self.socket):
            os.unlink(self.socket)


def make_database(binary, directory, name, players):
    """A livetable database, made by livetable itself, then grown to
    `players` players with random names and scores (seeded: the same
    screenshots each time)."""
    path = os.path.join(directory, name)
    tmux = Tmux(f"{binary} --database {path} --seed 7", env={"TERM": "screen-256color"})
    try:
        tmux.wait_for("Hall of Fame")
        tmux.keys("q")
        tmux.wait(lambda screen: "Hall of Fame" not in screen, "the app to quit")
    finally:
        tmux.kill()
    if players > 8:
        generator = random.Random(players)
        with sqlite3.connect(path) as db:
            db.executemany(
                "INSERT INTO player(name, score) VALUES (?, ?)",
                ((generator.choice(NAMES), generator.randint(0, 1000)) for _ in range(players - 8)))
    return path


def start(binary, database):
    tmux = Tmux(f"{binary} --database {database}", env={"TERM": "screen-256color", "LANG": "C.UTF-8"})
    tmux.wait_for("Hall of Fame")
    tmux.wait(lambda screen: "row 1 of" in screen, "the first value")
    return tmux


def make_shop(directory):
    """A file that livetable did not make: a shop's orders, written by
    Python's sqlite3 module (seeded: the same screenshot each time)."""
    path = os.path.join(directory, "shop.sqlite")
    generator = random.Random(11)
    items = ["Teapot", "Notebook", "Desk lamp", "Backpack", "Umbrella", "Headphones", "Mug",
             "Bicycle bell", "Chess set", "Plant pot"]
    statuses = ["paid", "packed", "shipped", "delivered"]
    notes = [None, None, "gift wrap", "leave at the door", "call before delivery, the bell is broken"]
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE orders(id INTEGER PRIMARY KEY, customer TEXT NOT NULL, item TEXT NOT NULL,"
            " quantity INTEGER, total REAL, status TEXT, note TEXT)")
        rows = []
        for _ in range(2_000):
            quantity = generator.randint(1, 4)
            rows.append((generator.choice(NAMES), generator.choice(items), quantity,
                         round(quantity * generator.uniform(3, 120), 2), generator.choice(statuses),
                         generator.choice(notes)))
        db.executemany(
            "INSERT INTO orders(customer, item, quantity, total, status, note) VALUES (?, ?, ?, ?, ?, ?)", rows)
    db.close()
    return path


def color(value, default, palette=ANSI):
    if value == "default":
        return default
    if value in palette:
        return palette[value]
    if len(value) == 6:
        return "#" + value
    return default


def render(capture, path, palette=None):
    """Replays a `capture-pane -e` capture on pyte and draws it, on a dark
    terminal or on `palette`'s."""
    background = palette["background"] if palette else BACKGROUND
    foreground = palette["foreground"] if palette else FOREGROUND
    palette = palette or ANSI
    screen = pyte.Screen(WIDTH, HEIGHT)
    stream = pyte.Stream(screen)
    lines = capture.rstrip("\n").split("\n")
    # Each captured line starts at the left margin of its own row. tmux
    # writes an attribute when it changes from the cell before, across
    # lines too: a line without codes goes on in the attributes of the end
    # of the line above, so they are not reset between lines.
    stream.feed("\x1b[0m" + "\r\n".join(lines[:HEIGHT]) + "\x1b[0m")

    regular = ImageFont.truetype(os.path.join(FONT_DIR, "DejaVuSansMono.ttf"), FONT_SIZE)
    bold = ImageFont.truetype(os.path.join(FONT_DIR, "DejaVuSansMono-Bold.ttf"), FONT_SIZE)
    cell_width = round(regular.getlength("M"))
    ascent, descent = regular.getmetrics()
    cell_height = ascent + descent + 2
    padding = 12
    image = Image.new(
        "RGB", (WIDTH * cell_width + 2 * padding, HEIGHT * cell_height + 2 * padding), background)
    draw = ImageDraw.Draw(image)
    for y in range(HEIGHT):
        row = screen.buffer[y]
        for x in range(WIDTH):
            char = row[x]
            if char.data == "":
                continue  # The right half of a wide character.
            fg = color(char.fg, foreground, palette)
            bg = color(char.bg, background, palette)
            if char.bold and char.fg in palette and not char.fg.startswith("bright"):
                fg = palette.get("bright" + char.fg, fg)
            if char.reverse:
                fg, bg = bg, fg
            width = 2 if x + 1 < WIDTH and row[x + 1].data == "" else 1
            left = padding + x * cell_width
            top = padding + y * cell_height
            if bg != background:
                draw.rectangle(
                    [left, top, left + width * cell_width - 1, top + cell_height - 1], fill=bg)
            if char.data.strip():
                font = bold if char.bold else regular
                if char.data in "─│┌┐└┘├┤┬┴┼":
                    draw_box_character(draw, char.data, left, top, cell_width, cell_height, fg)
                elif char.data == "█":
                    # The whole cell, as a terminal draws it: the font's
                    # glyph does not fill the line height.
                    draw.rectangle([left, top, left + cell_width - 1, top + cell_height - 1], fill=fg)
                else:
                    draw.text((left, top + 1), char.data, font=font, fill=fg)
    image.save(path)


def draw_box_character(draw, character, left, top, width, height, fill):
    """Box-drawing lines that join from cell to cell, whatever the font's
    line height."""
    middle_x = left + width // 2
    middle_y = top + height // 2
    right = left + width - 1
    bottom = top + height - 1
    reach = {
        "─": "lr", "│": "tb", "┌": "rb", "┐": "lb", "└": "rt", "┘": "lt",
        "├": "tbr", "┤": "tbl", "┬": "lrb", "┴": "lrt", "┼": "lrtb",
    }[character]
    if "l" in reach:
        draw.line([(left, middle_y), (middle_x, middle_y)], fill=fill)
    if "r" in reach:
        draw.line([(middle_x, middle_y), (right, middle_y)], fill=fill)
    if "t" in reach:
        draw.line([(middle_x, top), (middle_x, middle_y)], fill=fill)
    if "b" in reach:
        draw.line([(middle_x, middle_y), (middle_x, bottom)], fill=fill)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", required=True, help="the livetable executable")
    parser.add_argument("--output", default="screenshots", help="the directory of the PNG files")
    parser.add_argument("--only", choices=["viewer.png", "follow.png", "filter.png", "postgres.png", "sheets.png",
                                              "prompt.png", "chart.png", "changes.png", "light.png"], help="make only this screenshot")
    arguments = parser.parse_args()
    binary = os.path.abspath(arguments.binary)
    os.makedirs(arguments.output, exist_ok=True)
    for tool in ("tmux",):
        if shutil.which(tool) is None:
            raise SystemExit(f"screenshots: {tool} is not installed")

    with tempfile.TemporaryDirectory() as directory:
        # Enough players to fill the list.
        database = make_database(binary, directory, "players.sqlite", players=40)
        # Enough players for the stress test (50 refreshes of every score)
        # to be caught in progress.
        big_database = make_database(binary, directory, "big.sqlite", players=30_008)
        # The same players, for another process to change.
        changed_database = make_database(binary, directory, "changed.sqlite", players=40)

        def shot(name, prepare, database=database):
            tmux = start(binary, database)
            try:
                prepare(tmux)
                render(tmux.capture(), os.path.join(arguments.output, name))
                print(f"screenshots: {name}")
            finally:
                tmux.kill()

        def main_screen(tmux):
            tmux.keys("j", "j", "j")
            tmux.wait_for("row 4 of 40")

        def help_overlay(tmux):
            tmux.keys("?")
            tmux.wait_for("Press any key to close")

        def edit_form(tmux):
            tmux.keys("j", "e")
            tmux.wait_for("Edit player")
            tmux.keys("Tab", "C-u")
            tmux.text("12x")
            tmux.keys("Enter")
            tmux.wait_for("Score must be an integer")

        def stress_test(tmux):
            tmux.keys("s")
            # "stress test 20/50…": past the first refreshes, not finished.
            def in_progress(screen):
                for line in screen.splitlines():
                    if "stress test " in line and "/50…" in line:
                        done = line.split("stress test ")[1].split("/")[0]
                        return done.isdigit() and int(done) >= 10
                return False
            tmux.wait(in_progress, "the stress test in progress", poll=0.005)

        def highlighted_change(tmux):
            # Another process changes a score and adds a player: the score
            # and the new row are highlighted, for the capture that follows
            # at once.
            with sqlite3.connect(changed_database) as db:
                db.execute(
                    "UPDATE player SET score = 700 WHERE id = "
                    "(SELECT id FROM player ORDER BY score DESC, name, id LIMIT 1 OFFSET 4)")
                db.execute("INSERT INTO player(name, score) VALUES ('Zoe', 950)")
            tmux.wait_for("Zoe")

        def shop_shot(name, prepare, subdirectory=True, config=None, palette=None):
            # A shop's orders in a file of its own, the viewer on it (with
            # `config` as its config file), then `prepare(tmux, shop)` up to
            # the screen that is drawn, on a terminal of `palette`.
            shop_directory = os.path.join(directory, name[:-len(".png")]) if subdirectory else directory
            os.makedirs(shop_directory, exist_ok=True)
            shop = make_shop(shop_directory)
            env = {"TERM": "screen-256color", "LANG": "C.UTF-8",
                   "XDG_CONFIG_HOME": os.path.join(shop_directory, "config")}
            if config is not None:
                os.makedirs(os.path.join(env["XDG_CONFIG_HOME"], "livetable"), exist_ok=True)
                with open(os.path.join(env["XDG_CONFIG_HOME"], "livetable", "config.toml"), "w") as file:
                    file.write(config)
            tmux = Tmux(f"{binary} view {shop} orders", env=env)
            try:
                tmux.wait_for("of 2,000 · live")
                prepare(tmux, shop)
                render(tmux.capture(), os.path.join(arguments.output, name), palette)
                print("screenshots: " + name)
            finally:
                tmux.kill()

        def viewer():
            # The viewer on the file, then another program's writes while
            # it runs: an order of the screen changes, a new one arrives.
            def prepare(tmux, shop):
                tmux.keys("j", "j", "j")
                tmux.wait_for("row 4 of 2,000 · live")
                with sqlite3.connect(shop) as db:
                    db.execute("UPDATE orders SET status = 'shipped', note = 'sent by express' WHERE id = 4")
                    db.execute(
                        "INSERT INTO orders(customer, item, quantity, total, status) "
                        "VALUES ('Zoé', 'Teapot', 1, 24.5, 'paid')")
                db.close()
                tmux.wait(lambda screen: "row 4 of 2,001 · live" in screen and "sent by express" in screen,
                          "the other program's writes")
            shop_shot("viewer.png", prepare, subdirectory=False)

        def filtered():
            # The viewer on the same kind of file, filtered by a SQL
            # expression, then searched in the customer column while
            # another program inserts an order the filter keeps.
            def prepare(tmux, shop):
                tmux.keys("f")
                tmux.text("status = 'paid' AND total > 250")
                tmux.keys("Enter")
                tmux.wait(lambda screen: "where status" in screen
                          and re.search(r"row 1 of [0-9]+ · live", screen) is not None, "the filtered count")
                with sqlite3.connect(shop) as db:
                    db.execute(
                        "INSERT INTO orders(customer, item, quantity, total, status) "
                        "VALUES ('Zoé', 'Chess set', 4, 312.5, 'paid')")
                db.close()
                tmux.wait(lambda screen: "Zoé" in screen or "+1" in screen, "the new order")
                tmux.keys("l", "/")
                tmux.text("ar")
                tmux.keys("Enter")
                tmux.wait(lambda screen: re.search(r"row [0-9,]+ of [0-9,]+ · live", screen) is not None
                          and "row 1 of" not in screen, "the first match")
            shop_shot("filter.png", prepare)

        def sheets():
            # The frequency sheet of the status column (#), live: another
            # program moves orders from paid to shipped, both counts change.
            def prepare(tmux, shop):
                tmux.keys("l", "l", "l", "l", "l", "#")
                tmux.wait_for("status: frequency")
                tmux.wait(lambda screen: "row 1 of 4 · live" in screen, "the groups")
                with sqlite3.connect(shop) as db:
                    db.execute("UPDATE orders SET status = 'shipped' WHERE id IN "
                               "(SELECT id FROM orders WHERE status = 'paid' LIMIT 40)")
                db.close()
                tmux.wait(lambda screen: "shipped" in screen.split("\n")[2], "shipped, the first group")
            shop_shot("sheets.png", prepare)

        def prompt():
            # The query prompt (:), holding what the sheet runs, edited.
            def prepare(tmux, shop):
                tmux.keys(":", "C-u")
                tmux.text("SELECT customer, count(*) AS orders, sum(total) AS spent FROM orders "
                          "GROUP BY customer ORDER BY spent DESC")
                tmux.wait_for("ORDER BY spent DESC")
            shop_shot("prompt.png", prepare)

        def chart():
            # The chart of the total column (.), live: another program
            # inserts large orders, the last bars grow.
            def prepare(tmux, shop):
                tmux.keys("l", "l", "l", "l", ".")
                tmux.wait(lambda screen: "total: histogram" in screen and "· live" in screen, "the chart")
                with sqlite3.connect(shop) as db:
                    db.executemany(
                        "INSERT INTO orders(customer, item, quantity, total, status) VALUES (?, 'Bicycle bell', 4, ?, 'paid')",
                        [("Zoé", 420.5)] * 60)
                db.close()
                tmux.wait(lambda screen: re.search(r"408 – 432 │█+[▏▎▍▌▋▊▉]? 86", screen) is not None,
                          "the inserted orders")
            shop_shot("chart.png", prepare)

        def changes():
            # The changes log (L) after another program's updates of rows
            # on screen: old and new values, newest first.
            def prepare(tmux, shop):
                with sqlite3.connect(shop) as db:
                    db.execute("UPDATE orders SET status = 'shipped' WHERE id = 3")
                db.close()
                tmux.wait(lambda screen: "shipped" in screen.split("\n")[4], "the first update")
                with sqlite3.connect(shop) as db:
                    db.execute("UPDATE orders SET quantity = quantity + 1, total = total + 10 WHERE id = 5")
                    db.execute("INSERT INTO orders(customer, item, quantity, total, status) "
                               "VALUES ('Zoé', 'Teapot', 1, 24.5, 'paid')")
                db.close()
                tmux.wait(lambda screen: "2,001" in screen, "the second update")
                tmux.keys("L")
                tmux.wait(lambda screen: "changes log" in screen and "quantity:" in screen, "the changes log")
            shop_shot("changes.png", prepare)

        def light():
            # The light theme of a config file, on a light terminal: the
            # describe sheet, then another program's update highlighted.
            def prepare(tmux, shop):
                tmux.keys("l", "l", "l", "l")
                with sqlite3.connect(shop) as db:
                    db.execute("UPDATE orders SET total = 999.5, status = 'delivered' WHERE id = 3")
                db.close()
                tmux.wait_for("999.5")
            shop_shot("light.png", prepare, config='theme = "light"\n', palette=LIGHT)

        def follow():
            # The viewer following the end of the file (F) while another
            # program appends orders: the new ones show at the bottom,
            # highlighted, for the capture that follows at once.
            def prepare(tmux, shop):
                tmux.keys("F")
                tmux.wait_for("row 2,000 of 2,000 · following")
                new_orders = [("Zoé", "Teapot", 1, 24.5), ("Masashi", "Chess set", 2, 61.8),
                              ("Irene", "Umbrella", 1, 19.9)]
                with sqlite3.connect(shop) as db:
                    for customer, item, quantity, total in new_orders:
                        db.execute(
                            "INSERT INTO orders(customer, item, quantity, total, status) VALUES (?, ?, ?, ?, 'paid')",
                            (customer, item, quantity, total))
                        db.commit()
                db.close()
                tmux.wait_for("row 2,003 of 2,003 · following")
            shop_shot("follow.png", prepare)

        def postgres():
            # The viewer on a throwaway PostgreSQL server (initdb in a
            # directory of its own, served on 127.0.0.1 only, trusted), then
            # psql's UPDATE of a track on screen while it runs: highlighted
            # within the poll of 0.05 s. Skipped without PostgreSQL.
            bin_directory = "/usr/lib/postgresql/15/bin"
            if not os.path.exists(os.path.join(bin_directory, "initdb")) or shutil.which("runuser") is None:
                print("screenshots: postgres.png skipped: no PostgreSQL 15 server, or no runuser")
                return
            server = tempfile.mkdtemp(prefix="livetable-shot-pg-")
            shutil.chown(server, "postgres")
            data = os.path.join(server, "data")

            def as_postgres(*command):
                return subprocess.run(["runuser", "-u", "postgres", "--", *command], check=True,
                                      capture_output=True, text=True, cwd=server, stdin=subprocess.DEVNULL).stdout

            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                port = probe.getsockname()[1]
            as_postgres(os.path.join(bin_directory, "initdb"), "-D", data, "-U", "postgres", "-A", "trust",
                        "-E", "UTF8", "--locale", "C", "--no-sync")
            with open(os.path.join(data, "postgresql.conf"), "a") as conf:
                conf.write(f"listen_addresses = '127.0.0.1'\nport = {port}\n"
                           f"unix_socket_directories = '{server}'\nfsync = off\n")
            as_postgres(os.path.join(bin_directory, "pg_ctl"), "-D", data, "-l", os.path.join(server, "server.log"),
                        "-w", "-t", "60", "start")
            tmux = None
            try:
                def psql(database, sql):
                    as_postgres("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", str(port),
                                "-U", "postgres", "-d", database, "-c", sql)

                psql("postgres", "CREATE DATABASE music")
                generator = random.Random(5)
                artists = ["Nina Simone", "Miles Davis", "Björk", "Radiohead", "Fela Kuti", "Kraftwerk",
                           "Aretha Franklin", "Caetano Veloso", "Portishead", "Ali Farka Touré"]
                words = ["Blue", "Night", "River", "Song", "Light", "Train", "Morning", "Paper", "Heart",
                         "Glass", "Road", "Summer", "Machine", "Moon", "Water", "Fire"]
                rows = []
                for _ in range(500):
                    title = f"{generator.choice(words)} {generator.choice(words).lower()}".replace("'", "''")
                    artist = generator.choice(artists).replace("'", "''")
                    rows.append(f"('{title}', '{artist}', {generator.randint(120, 420)}, {generator.randint(0, 5000)})")
                psql("music", "CREATE TABLE tracks(id serial PRIMARY KEY, title text NOT NULL, artist text NOT NULL,"
                     " seconds integer NOT NULL, plays integer NOT NULL DEFAULT 0);"
                     "INSERT INTO tracks(title, artist, seconds, plays) VALUES " + ", ".join(rows))
                tmux = Tmux(f"{binary} view postgres://postgres@127.0.0.1:{port}/music tracks",
                            env={"TERM": "screen-256color", "LANG": "C.UTF-8"})
                # The count may be the planner's estimate ("~500").
                tmux.wait(lambda screen: re.search(r"of ~?500 · live", screen) is not None, "the first rows")
                tmux.keys("j", "j", "j")
                tmux.wait(lambda screen: re.search(r"row 4 of ~?500 · live", screen) is not None, "row 4")
                # A row below the selection, so that its highlight shows.
                psql("music", "UPDATE tracks SET plays = plays + 1000, title = 'Feeling good' WHERE id = 9")
                tmux.wait_for("Feeling good")
                render(tmux.capture(), os.path.join(arguments.output, "postgres.png"))
                print("screenshots: postgres.png")
            finally:
                if tmux is not None:
                    tmux.kill()
                as_postgres(os.path.join(bin_directory, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop")
                shutil.rmtree(server, ignore_errors=True)

        if arguments.only:
            {"follow.png": follow, "filter.png": filtered, "viewer.png": viewer,
             "postgres.png": postgres, "sheets.png": sheets, "prompt.png": prompt,
             "chart.png": chart, "changes.png": changes, "light.png": light}[arguments.only]()
            return
        shot("main.png", main_screen)
        shot("help.png", help_overlay)
        shot("edit.png", edit_form)
        shot("stress.png", stress_test, database=big_database)
        shot("highlight.png", highlighted_change, database=changed_database)
        viewer()
        follow()
        filtered()
        sheets()
        prompt()
        chart()
        changes()
        light()
        postgres()


if __name__ == "__main__":
    main()
