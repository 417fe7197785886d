CREATE SCHEMA "marketplace";
--> statement-breakpoint
CREATE TABLE "marketplace"."inbox" (
	"event_id" uuid PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"handled_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "marketplace"."marketplaces" (
	"id" uuid PRIMARY KEY NOT NULL,
	"avatar_id" text NOT NULL,
	"owner_id" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "marketplaces_avatar_id_unique" UNIQUE("avatar_id")
);
--> statement-breakpoint
CREATE TABLE "marketplace"."outbox" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"id" uuid NOT NULL,
	"type" text NOT NULL,
	"aggregate_id" text NOT NULL,
	"version" integer NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"payload" jsonb NOT NULL,
	"published_at" timestamp with time zone,
	"claimed_until" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "outbox_id_unique" UNIQUE("id")
);
--> statement-breakpoint
CREATE TABLE "marketplace"."sagas" (
	"id" uuid PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"marketplace_id" uuid NOT NULL,
	"avatar_id" text NOT NULL,
	"item_name" text NOT NULL,
	"item" jsonb,
	"price" bigint,
	"state" text NOT NULL,
	"done" jsonb NOT NULL,
	"undone" jsonb NOT NULL,
	"in_doubt" text,
	"failure" text,
	"attempts" integer NOT NULL,
	"version" integer NOT NULL,
	"lease_until" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "marketplace"."sold_items" (
	"saga_id" uuid PRIMARY KEY NOT NULL,
	"seq" bigserial NOT NULL,
	"marketplace_id" uuid NOT NULL,
	"item" jsonb NOT NULL,
	"name" text NOT NULL,
	"price" bigint NOT NULL,
	"sold_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "marketplace"."sold_items" ADD CONSTRAINT "sold_items_marketplace_id_marketplaces_id_fk" FOREIGN KEY ("marketplace_id") REFERENCES "marketplace"."marketplaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "outbox_published_at_seq_index" ON "marketplace"."outbox" USING btree ("published_at","seq");--> statement-breakpoint
CREATE INDEX "sagas_state_lease_idx" ON "marketplace"."sagas" USING btree ("state","lease_until");--> statement-breakpoint
CREATE INDEX "sold_items_marketplace_idx" ON "marketplace"."sold_items" USING btree ("marketplace_id","seq");--> statement-breakpoint
CREATE INDEX "sold_items_name_idx" ON "marketplace"."sold_items" USING btree ("marketplace_id","name");