CREATE TABLE "avatar"."league_closings" (
	"season" text NOT NULL,
	"tier" text NOT NULL,
	"division" integer NOT NULL,
	"closed_at" timestamp with time zone NOT NULL,
	CONSTRAINT "league_closings_season_tier_division_pk" PRIMARY KEY("season","tier","division")
);
--> statement-breakpoint
CREATE TABLE "avatar"."league_divisions" (
	"season" text NOT NULL,
	"tier" text NOT NULL,
	"divisions" integer NOT NULL,
	"last_members" integer NOT NULL,
	CONSTRAINT "league_divisions_season_tier_pk" PRIMARY KEY("season","tier")
);
--> statement-breakpoint
CREATE TABLE "avatar"."league_entries" (
	"season" text NOT NULL,
	"avatar_id" text NOT NULL,
	"tier" text,
	"division" integer,
	"score" bigint NOT NULL,
	"reached_at" timestamp with time zone NOT NULL,
	CONSTRAINT "league_entries_season_avatar_id_pk" PRIMARY KEY("season","avatar_id")
);
--> statement-breakpoint
CREATE TABLE "avatar"."league_results" (
	"season" text NOT NULL,
	"avatar_id" text NOT NULL,
	"tier" text NOT NULL,
	"division" integer NOT NULL,
	"rank" integer NOT NULL,
	"score" bigint NOT NULL,
	"result" text NOT NULL,
	"reward" integer NOT NULL,
	CONSTRAINT "league_results_avatar_id_season_pk" PRIMARY KEY("avatar_id","season")
);
--> statement-breakpoint
CREATE TABLE "avatar"."league_tiers" (
	"avatar_id" text PRIMARY KEY NOT NULL,
	"tier" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "league_entries_division_idx" ON "avatar"."league_entries" USING btree ("season","tier","division");--> statement-breakpoint
CREATE INDEX "league_entries_avatar_idx" ON "avatar"."league_entries" USING btree ("avatar_id");--> statement-breakpoint
-- An avatar's first score of a season enters it into the first division of its tier with room
-- (30 members: DIVISION_SIZE in src/contexts/avatar/domain/rules.ts). The tier's counter row is
-- taken by the upsert and held to the commit, so concurrent entries queue and none makes a 31st.
CREATE FUNCTION "avatar"."league_enter"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  entered_tier text;
  entered_division integer;
BEGIN
  SELECT "tier" INTO entered_tier FROM "avatar"."league_tiers" WHERE "avatar_id" = NEW."avatar_id";
  entered_tier := coalesce(entered_tier, 'BRONZE');
  INSERT INTO "avatar"."league_divisions" AS c ("season", "tier", "divisions", "last_members")
    VALUES (NEW."season", entered_tier, 1, 1)
    ON CONFLICT ("season", "tier") DO UPDATE SET
      "divisions" = c."divisions" + (CASE WHEN c."last_members" >= 30 THEN 1 ELSE 0 END),
      "last_members" = (CASE WHEN c."last_members" >= 30 THEN 1 ELSE c."last_members" + 1 END)
    RETURNING "divisions" INTO entered_division;
  UPDATE "avatar"."league_entries" SET "tier" = entered_tier, "division" = entered_division
    WHERE "season" = NEW."season" AND "avatar_id" = NEW."avatar_id";
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "league_entries_enter" AFTER INSERT ON "avatar"."league_entries"
  FOR EACH ROW EXECUTE FUNCTION "avatar"."league_enter"();
