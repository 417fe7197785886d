ALTER TABLE "avatar"."avatars" ADD COLUMN "deaths" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "guild"."battles" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "guild"."battles" ADD COLUMN "strike_backs_due" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
-- A battle's version moved once at its start and once per turn until now.
UPDATE "guild"."battles" SET "version" = "current_turn" + 1;
