CREATE TABLE "avatar"."experience_tallies" (
	"level" smallint NOT NULL,
	"key" bigint NOT NULL,
	"block" bigint NOT NULL,
	"avatars" integer NOT NULL,
	CONSTRAINT "experience_tallies_level_key_block_pk" PRIMARY KEY("level","key","block")
);
--> statement-breakpoint
ALTER TABLE "avatar"."avatars" ADD COLUMN "total_experience" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "avatar"."avatars" ADD COLUMN "experience_reached_at" timestamp with time zone DEFAULT clock_timestamp() NOT NULL;--> statement-breakpoint
CREATE INDEX "avatars_experience_board_idx" ON "avatar"."avatars" USING btree ((-"total_experience"),"experience_reached_at","id");--> statement-breakpoint
UPDATE "avatar"."avatars" SET "total_experience" = 25::bigint * ("level" - 1) * ("level" + 2) + "experience";--> statement-breakpoint
CREATE FUNCTION "avatar"."experience_reached"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.experience_reached_at := clock_timestamp();
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER "avatars_experience_reached" BEFORE UPDATE ON "avatar"."avatars" FOR EACH ROW
  WHEN (OLD.total_experience IS DISTINCT FROM NEW.total_experience) EXECUTE FUNCTION "avatar"."experience_reached"();--> statement-breakpoint
CREATE FUNCTION "avatar"."tally_experience"(totals bigint[], reached timestamptz[], deltas integer[]) RETURNS void LANGUAGE sql AS $$
  -- Each changed avatar leaves its old places (-1) and takes its new ones (+1); places whose count
  -- did not move (a change within one bucket and block) are not written. Rows are locked in key
  -- order, so two statements never wait for each other's tallies in a cycle.
  INSERT INTO avatar.experience_tallies AS t (level, key, block, avatars)
  SELECT p.level, p.key, p.block, sum(p.delta)
  FROM (
    SELECT 0::smallint AS level, c.total AS key, floor(extract(epoch FROM c.reached) / 3600)::bigint AS block, c.delta
    FROM unnest(totals, reached, deltas) AS c(total, reached, delta)
    UNION ALL
    SELECT 1::smallint, floor(c.total / 100.0)::bigint, -1::bigint, c.delta
    FROM unnest(totals, reached, deltas) AS c(total, reached, delta)
    UNION ALL
    SELECT 2::smallint, c.total, -1::bigint, c.delta
    FROM unnest(totals, reached, deltas) AS c(total, reached, delta)
  ) p
  GROUP BY p.level, p.key, p.block
  HAVING sum(p.delta) <> 0
  ORDER BY p.level, p.key, p.block
  ON CONFLICT (level, key, block) DO UPDATE SET avatars = t.avatars + excluded.avatars
$$;--> statement-breakpoint
CREATE FUNCTION "avatar"."tally_experience_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM avatar.tally_experience(array_agg(total_experience), array_agg(experience_reached_at), array_agg(1)) FROM new_rows;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION "avatar"."tally_experience_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM avatar.tally_experience(array_agg(total_experience), array_agg(experience_reached_at), array_agg(-1)) FROM old_rows;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION "avatar"."tally_experience_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A row trigger, and only for a row whose total or reaching time moved (its WHEN): most changes
  -- (money, health, items) leave both alone and pay nothing for the board.
  PERFORM avatar.tally_experience(ARRAY[OLD.total_experience, NEW.total_experience],
    ARRAY[OLD.experience_reached_at, NEW.experience_reached_at], ARRAY[-1, 1]);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "avatars_experience_tally_inserted" AFTER INSERT ON "avatar"."avatars" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "avatar"."tally_experience_inserted"();--> statement-breakpoint
CREATE TRIGGER "avatars_experience_tally_deleted" AFTER DELETE ON "avatar"."avatars" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "avatar"."tally_experience_deleted"();--> statement-breakpoint
CREATE TRIGGER "avatars_experience_tally_updated" AFTER UPDATE ON "avatar"."avatars" FOR EACH ROW
  WHEN ((OLD.total_experience, OLD.experience_reached_at) IS DISTINCT FROM (NEW.total_experience, NEW.experience_reached_at))
  EXECUTE FUNCTION "avatar"."tally_experience_updated"();--> statement-breakpoint
INSERT INTO "avatar"."experience_tallies" (level, key, block, avatars)
SELECT 0, total_experience, floor(extract(epoch FROM experience_reached_at) / 3600)::bigint, count(*) FROM "avatar"."avatars" GROUP BY 1, 2, 3
UNION ALL
SELECT 1, floor(total_experience / 100.0)::bigint, -1, count(*) FROM "avatar"."avatars" GROUP BY 1, 2, 3
UNION ALL
SELECT 2, total_experience, -1, count(*) FROM "avatar"."avatars" GROUP BY 1, 2, 3;
