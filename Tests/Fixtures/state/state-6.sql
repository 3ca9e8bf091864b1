-- A state database as the schema of migrations 1 to 6 made it, with a row in each table: what
-- a daemon before the privacy states left on disk (sqlite3 .dump). PrivacyRecordsTests opens it.
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
INSERT INTO grdb_migrations VALUES('1 tracker outbox');
INSERT INTO grdb_migrations VALUES('2 rewards');
INSERT INTO grdb_migrations VALUES('3 events');
INSERT INTO grdb_migrations VALUES('4 meta');
INSERT INTO grdb_migrations VALUES('5 tracker retries by due time');
INSERT INTO grdb_migrations VALUES('6 capped impressions');
CREATE TABLE IF NOT EXISTS "tracker_outbox" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "url" TEXT NOT NULL, "kind" TEXT NOT NULL, "created_at_ms" INTEGER NOT NULL, "attempts" INTEGER NOT NULL DEFAULT 0, "due_at_ms" INTEGER NOT NULL);
INSERT INTO tracker_outbox VALUES(1,'http://t/owed','impression',1699999000000,0,1699999000000);
CREATE TABLE IF NOT EXISTS "rewards" ("transaction_id" TEXT PRIMARY KEY NOT NULL, "ad_id" TEXT NOT NULL, "ad_unit" TEXT NOT NULL, "reward_type" TEXT NOT NULL, "reward_amount" DOUBLE NOT NULL, "custom_data" TEXT, "user_id" TEXT, "uid" INTEGER, "earned_at_ms" INTEGER NOT NULL, "claimed_at_ms" INTEGER);
INSERT INTO rewards VALUES('tx-1','ad-1','rewarded','coins',10.0,NULL,'user-1',1000,1699999100000,NULL);
CREATE TABLE IF NOT EXISTS "events" ("sequence" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "ad_id" TEXT, "ad_unit" TEXT NOT NULL, "fields" TEXT NOT NULL, "at_ms" INTEGER NOT NULL);
INSERT INTO events VALUES(41,'impression','ad-1','rewarded','{}',1699999100000);
CREATE TABLE IF NOT EXISTS "meta" ("key" TEXT PRIMARY KEY NOT NULL, "value" INTEGER NOT NULL);
INSERT INTO meta VALUES('events_reserved',42);
CREATE TABLE IF NOT EXISTS "capped_impressions" ("ad_unit" TEXT NOT NULL, "uid" INTEGER, "at_ms" INTEGER NOT NULL);
INSERT INTO capped_impressions VALUES('banner',1000,1699999200000);
DELETE FROM sqlite_sequence;
INSERT INTO sqlite_sequence VALUES('tracker_outbox',1);
CREATE INDEX "rewards_on_earned_at_ms" ON "rewards"("earned_at_ms");
CREATE INDEX tracker_outbox_retries ON tracker_outbox(due_at_ms) WHERE attempts > 0;
CREATE INDEX "capped_impressions_by_app" ON "capped_impressions"("ad_unit", "uid", "at_ms");
COMMIT;
