-- A season's tiers are set when the season before it closes (a job, every few minutes). An avatar
-- that scores first in a new week before its last week is closed waits, unplaced (tier and division
-- null), so it never plays a week in the tier it is leaving; the job places it once that week is
-- closed. An entry is placed only when every earlier entry of its avatar is closed, so looking at the
-- latest earlier one is enough.
CREATE FUNCTION "avatar"."league_waits"(p_season text, p_avatar_id text) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT coalesce((
    SELECT NOT EXISTS (SELECT 1 FROM "avatar"."league_closings" c WHERE c."season" = e."season" AND c."tier" = e."tier" AND c."division" = e."division")
    FROM "avatar"."league_entries" e
    WHERE e."avatar_id" = p_avatar_id AND e."season" < p_season
    ORDER BY e."season" DESC LIMIT 1
  ), false)
$$;
--> statement-breakpoint
-- Places an unplaced entry into the first division of its avatar's tier with room (30 members:
-- DIVISION_SIZE in src/contexts/avatar/domain/rules.ts). The tier's counter row is taken by the
-- upsert and held to the commit, so concurrent entries queue and none makes a 31st. Placing an
-- entry placed already does nothing, so replicas may race.
CREATE FUNCTION "avatar"."league_place"(p_season text, p_avatar_id text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  entered_tier text;
  entered_division integer;
BEGIN
  PERFORM 1 FROM "avatar"."league_entries" WHERE "season" = p_season AND "avatar_id" = p_avatar_id AND "tier" IS NULL FOR UPDATE;
  IF NOT FOUND THEN RETURN false; END IF;
  SELECT "tier" INTO entered_tier FROM "avatar"."league_tiers" WHERE "avatar_id" = p_avatar_id;
  entered_tier := coalesce(entered_tier, 'BRONZE');
  INSERT INTO "avatar"."league_divisions" AS c ("season", "tier", "divisions", "last_members")
    VALUES (p_season, entered_tier, 1, 1)
    ON CONFLICT ("season", "tier") DO UPDATE SET
      "divisions" = c."divisions" + (CASE WHEN c."last_members" >= 30 THEN 1 ELSE 0 END),
      "last_members" = (CASE WHEN c."last_members" >= 30 THEN 1 ELSE c."last_members" + 1 END)
    RETURNING "divisions" INTO entered_division;
  UPDATE "avatar"."league_entries" SET "tier" = entered_tier, "division" = entered_division
    WHERE "season" = p_season AND "avatar_id" = p_avatar_id;
  RETURN true;
END
$$;
--> statement-breakpoint
-- An avatar's first score of a season enters it at once, unless its last week is still to close.
CREATE OR REPLACE FUNCTION "avatar"."league_enter"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT "avatar"."league_waits"(NEW."season", NEW."avatar_id") THEN
    PERFORM "avatar"."league_place"(NEW."season", NEW."avatar_id");
  END IF;
  RETURN NULL;
END
$$;
