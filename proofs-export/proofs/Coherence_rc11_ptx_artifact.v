(* Coherence_rc11_ptx_artifact.v -- hand-written, NOT generated.

   Scoped RC11's Coherence (irreflexive hb; eco?) holds on the lift Xs of every
   PTX-consistent execution Xt of a compiled program, for mappings/rc11-ptx-artifact.map,
   provided the lift has no data race: [coherence_of_race_free_lift]. As in the Atomicity file,
   this is the ASPLOS'19 form of the claim (race freedom of the execution); the step from the
   exported [drf] (race freedom of the program) is what is left ([lifts_race_free]).

   The proof.
   - eco of Xs is rf | co | fr | co;rf | fr;rf ([coh_eco_nf]): models/rc11-base.cat writes RC11's
     (rf | mo | rb)+ in this normal form, and [coh_closure_eco]/[coh_eco_closure] prove the two
     equal on the lift (rf is functional, co transitive, and the other compositions join a read
     to a write). co of Xs is co of Xt ([co_agrees]), so
     fr of Xs is fr of Xt, and rf of Xs is rf of Xt.
   - hb a b against eco b a, case by case: with rf b a or fr b a, hb from the read or write a
     is PTX's po (SCPerLocation fails) or cause_base (Causality fails); with co b a, co_t a b
     ([co_of_hb]). With co b c; rf c a or fr b c; rf c a, race freedom orders c and a: hb c a
     (then hb c b: the co or fr case), hb a c (the rf case), or atomics of inclusive scopes,
     where rf c a is obs in Xt and PTX's Coherence (co_t c b) or Causality fails on obs;cause.
   - hb a a: sb alone is acyclic, so the cycle holds an incl & sw step, from the release side
     through w' (rf; rmw)* m, rf m r, to the acquire side; the rest of the cycle gives hb r w'.
     rf; rmw is in co ([coh_rf_rmw_co], by totality of co on Xs and the cases above), so
     w' = m or co w' m, and hb r w' with rf m r is the rf or co;rf case.

   The test suite compiles this file against a fresh export (mapcheck export-coq
   mappings/rc11-ptx-artifact.map) after the files it imports. *)
From Mapcheck Require Import Rel Dec Checks Exec Model_wf Mirror_wf Program Model_rc11_scoped Mirror_rc11_scoped Model_ptx_v6 Obligations_rc11_ptx_artifact Compilation_rc11_ptx_artifact Strength_rc11_ptx_artifact Cause_rc11_ptx_artifact Atomicity_rc11_ptx_artifact.

(* The normal form of eco. *)
Definition coh_nf (X : exec) : rel := fun x y =>
  rf X x y \/ co X x y \/ fr X x y \/ seq (co X) (rf X) x y \/ seq (fr X) (rf X) x y.

(* hb or the identity. *)
Definition coh_hbo (X : exec) : rel := fun a b => a = b \/ rc11_scoped_hb X a b.

Section Coherence.
Variables (Ps Pt : program) (Xs Xt : exec).
Hypothesis C : compilation Ps Pt Xs Xt.

(* The lift has no data race: what is left to derive from [drf Ps]. *)
Hypothesis Xs_race_free : rc11_scoped_race_free Xs.

Let WfS := Xs_wf Ps Pt Xs Xt C.
Let WfT := Xt_wf Ps Pt Xs Xt C.

(* A write and a distinct memory event of one location of Xs are ordered by hb, or atomics of
   inclusive scopes. *)
Lemma coh_not_racing : forall x y, W Xs x -> M Xs y -> loc Xs x y -> x <> y ->
  ~ ~ (rc11_scoped_hb Xs x y \/ rc11_scoped_hb Xs y x \/
       (rc11_scoped_A Xs x /\ incl Xs x y /\ rc11_scoped_A Xs y)).
Proof.
  intros x y Wx My L D N. apply Xs_race_free. intros Emp.
  apply (Emp x y). split; [split|].
  - split; [split; [left; split; assumption | exact L] | exact (not_id _ _ _ WfS D)].
  - intros [H|H]; apply N; [left | right; left]; exact H.
  - intros (m & [Ax <-] & (k & I & [Ay <-])). apply N. right. right. auto.
Qed.

(* ---- eco of Xs in normal form ---- *)

Lemma coh_fr_ends : forall a b, fr Xs a b -> ~ ~ (R Xs a /\ W Xs b).
Proof.
  intros a b Fr. apply (nn_bind _ _ (fr_source_def _ _ _ _ C a b Fr)). intros (w & Rf & Co).
  apply (nn_bind _ _ (rf_shape_nn Xs WfS w a Rf)). intros (_ & Ra & _).
  apply (nn_bind _ _ (wf_co_shape Xs WfS w b Co)). intros [[_ Wb] _].
  apply nn_ret. split; assumption.
Qed.

Lemma coh_nf_step : forall x y z, union (rf Xs) (union (co Xs) (fr Xs)) x y -> coh_nf Xs y z ->
  ~ ~ coh_nf Xs x z.
Proof.
  intros x y z S N. destruct S as [Rxy|[Cxy|Fxy]].
  - (* rf x y: y is a read *)
    apply (nn_bind _ _ (rf_shape_nn Xs WfS x y Rxy)). intros (_ & Ry & _).
    destruct N as [Ryz|[Cyz|[Fyz|[(m & Cym & _)|(m & Fym & Rmz)]]]].
    + apply (nn_bind _ _ (rf_shape_nn Xs WfS y z Ryz)). intros (Wy & _). intros _. exact (kinds_RW _ y WfS Ry Wy).
    + apply (nn_bind _ _ (wf_co_shape Xs WfS y z Cyz)). intros [[Wy _] _]. intros _. exact (kinds_RW _ y WfS Ry Wy).
    + apply (nn_bind _ _ (fr_source_def _ _ _ _ C y z Fyz)). intros (w & Rwy & Cwz).
      rewrite (wf_rf_unique Xs WfS x w y Rxy Rwy). apply nn_ret. right; left. exact Cwz.
    + apply (nn_bind _ _ (wf_co_shape Xs WfS y m Cym)). intros [[Wy _] _]. intros _. exact (kinds_RW _ y WfS Ry Wy).
    + apply (nn_bind _ _ (fr_source_def _ _ _ _ C y m Fym)). intros (w & Rwy & Cwm).
      rewrite (wf_rf_unique Xs WfS x w y Rxy Rwy). apply nn_ret. right; right; right; left.
      exists m. split; assumption.
  - (* co x y: y is a write *)
    apply (nn_bind _ _ (wf_co_shape Xs WfS x y Cxy)). intros [[_ Wy] _].
    destruct N as [Ryz|[Cyz|[Fyz|[(m & Cym & Rmz)|(m & Fym & _)]]]].
    + apply nn_ret. right; right; right; left. exists y. split; assumption.
    + apply (nn_bind _ _ (co_source_transitive _ _ _ _ C x y z Cxy Cyz)). intro Cxz.
      apply nn_ret. right; left. exact Cxz.
    + apply (nn_bind _ _ (coh_fr_ends y z Fyz)). intros [Ry _] _. exact (kinds_RW _ y WfS Ry Wy).
    + apply (nn_bind _ _ (co_source_transitive _ _ _ _ C x y m Cxy Cym)). intro Cxm.
      apply nn_ret. right; right; right; left. exists m. split; assumption.
    + apply (nn_bind _ _ (coh_fr_ends y m Fym)). intros [Ry _] _. exact (kinds_RW _ y WfS Ry Wy).
  - (* fr x y: y is a write *)
    apply (nn_bind _ _ (fr_source_def _ _ _ _ C x y Fxy)). intros (w & Rwx & Cwy).
    apply (nn_bind _ _ (wf_co_shape Xs WfS w y Cwy)). intros [[_ Wy] _].
    destruct N as [Ryz|[Cyz|[Fyz|[(m & Cym & Rmz)|(m & Fym & _)]]]].
    + apply nn_ret. right; right; right; right. exists y. split; assumption.
    + apply (nn_bind _ _ (co_source_transitive _ _ _ _ C w y z Cwy Cyz)). intro Cwz.
      apply (nn_bind _ _ (fr_source_intro _ _ _ _ C x z (ex_intro _ w (conj Rwx Cwz)))). intro Fxz.
      apply nn_ret. right; right; left. exact Fxz.
    + apply (nn_bind _ _ (coh_fr_ends y z Fyz)). intros [Ry _] _. exact (kinds_RW _ y WfS Ry Wy).
    + apply (nn_bind _ _ (co_source_transitive _ _ _ _ C w y m Cwy Cym)). intro Cwm.
      apply (nn_bind _ _ (fr_source_intro _ _ _ _ C x m (ex_intro _ w (conj Rwx Cwm)))). intro Fxm.
      apply nn_ret. right; right; right; right. exists m. split; assumption.
    + apply (nn_bind _ _ (coh_fr_ends y m Fym)). intros [Ry _] _. exact (kinds_RW _ y WfS Ry Wy).
Qed.

(* eco, as models/rc11-base.cat writes it (rf | (mo | rb); rf?), is the normal form ... *)
Lemma coh_eco_nf : forall x y, rc11_scoped_eco Xs x y -> ~ ~ coh_nf Xs x y.
Proof.
  intros x y H. unfold rc11_scoped_eco, rc11_scoped_mo, rc11_scoped_rb in H. apply nn_ret.
  destruct H as [Rf | (z & [Co | Fr] & [[_ Eq] | Rf])]; unfold coh_nf.
  - left. exact Rf.
  - subst z. right; left. exact Co.
  - right; right; right; left. exists z. split; assumption.
  - subst z. right; right; left. exact Fr.
  - right; right; right; right. exists z. split; assumption.
Qed.

(* ... and conversely (the identity step of rf? needs the write to be an event). *)
Lemma coh_nf_eco : forall x y, coh_nf Xs x y -> ~ ~ rc11_scoped_eco Xs x y.
Proof.
  intros x y N. unfold rc11_scoped_eco, rc11_scoped_mo, rc11_scoped_rb.
  assert (Ev : W Xs y -> ~ ~ E Xs y).
  { intro Wy. apply (labelled_in_events Xs y (wf_consistent_labels_in_events _ WfS)). tauto. }
  destruct N as [Rf|[Co|[Fr|[(m & Co & Rf)|(m & Fr & Rf)]]]].
  - apply nn_ret. left. exact Rf.
  - apply (nn_bind _ _ (wf_co_shape Xs WfS x y Co)). intros [[_ Wy] _].
    apply (nn_bind _ _ (Ev Wy)). intro Ey. apply nn_ret. right.
    exists y. split; [left; exact Co | left; split; [exact Ey | reflexivity]].
  - apply (nn_bind _ _ (coh_fr_ends x y Fr)). intros [_ Wy].
    apply (nn_bind _ _ (Ev Wy)). intro Ey. apply nn_ret. right.
    exists y. split; [right; exact Fr | left; split; [exact Ey | reflexivity]].
  - apply nn_ret. right. exists m. split; [left; exact Co | right; exact Rf].
  - apply nn_ret. right. exists m. split; [right; exact Fr | right; exact Rf].
Qed.

(* RC11's eco, (rf | mo | rb)+, is eco as rc11-base.cat writes it, on the lift: a path of any
   length shortens to the normal form ([coh_nf_step]); conversely each case of rc11-base.cat's
   eco is a path of at most two steps. (tests/it/wf_model.rs checks the same equality over every
   well-formed execution of up to five events.) *)
Lemma coh_closure_eco : forall x y,
  tc (union (rf Xs) (union (co Xs) (fr Xs))) x y -> ~ ~ rc11_scoped_eco Xs x y.
Proof.
  intros x y H. enough (N : ~ ~ coh_nf Xs x y) by exact (nn_bind _ _ N (coh_nf_eco x y)).
  induction H as [x y S | x z y S _ IH].
  - apply nn_ret. destruct S as [Rf|[Co|Fr]]; [left | right; left | right; right; left]; assumption.
  - apply (nn_bind _ _ IH). intro N. exact (coh_nf_step x z y S N).
Qed.

Lemma coh_eco_closure : forall x y,
  rc11_scoped_eco Xs x y -> tc (union (rf Xs) (union (co Xs) (fr Xs))) x y.
Proof.
  intros x y H. unfold rc11_scoped_eco, rc11_scoped_mo, rc11_scoped_rb in H.
  destruct H as [Rf | (z & CoFr & [[_ Eq] | Rf])].
  - apply tc_once. left. exact Rf.
  - subst z. apply tc_once. right. exact CoFr.
  - apply (tc_step _ x z y); [right; exact CoFr | apply tc_once; left; exact Rf].
Qed.

(* ---- sb alone is acyclic; an hb cycle holds a synchronisation step ---- *)

Lemma coh_sb_po : forall a b, tc (rc11_scoped_sb Xs) a b -> ~ IW Xs a -> ~ ~ po Xs a b.
Proof.
  intros a b H. induction H as [a b [P|[Ia _]] | a z b [P|[Ia _]] _ IH]; intro Na.
  - apply nn_ret. exact P.
  - exfalso. exact (Na Ia).
  - apply (nn_bind _ _ (IH (po_threaded_r Xs WfS a z P))). intro Q. exact (po_trans Xs WfS a z b P Q).
  - exfalso. exact (Na Ia).
Qed.

Lemma coh_sb_end : forall a b, tc (rc11_scoped_sb Xs) a b -> ~ IW Xs b.
Proof.
  intros a b H. destruct (tc_last _ _ _ H) as [[P|[_ [_ Nb]]]|(z & _ & [P|[_ [_ Nb]]])].
  - exact (po_threaded_r Xs WfS a b P).
  - exact Nb.
  - exact (po_threaded_r Xs WfS z b P).
  - exact Nb.
Qed.

Lemma coh_sb_irr : forall a, tc (rc11_scoped_sb Xs) a a -> False.
Proof.
  intros a H. apply (coh_sb_po a a H (coh_sb_end a a H)). intro P.
  exact (wf_consistent_po_irreflexive _ WfS a P).
Qed.

Lemma coh_hbo_trans : forall a b c, coh_hbo Xs a b -> coh_hbo Xs b c -> coh_hbo Xs a c.
Proof.
  intros a b c [<-|H] [<-|K];
    [left; reflexivity | right; exact K | right; exact H | right; exact (tc_trans _ _ _ _ H K)].
Qed.

Lemma coh_sb_hbo : forall a b, rc11_scoped_sb Xs a b -> coh_hbo Xs a b.
Proof. intros a b S. right. apply tc_once. left. exact S. Qed.

Lemma coh_hb_split : forall a b, tc (hb_step Xs) a b -> tc (rc11_scoped_sb Xs) a b \/
  exists x y, coh_hbo Xs a x /\ inter (incl Xs) (rc11_scoped_sw Xs) x y /\ coh_hbo Xs y b.
Proof.
  intros a b H. induction H as [a b [S|S] | a z b [S|S] T IH].
  - left. apply tc_once. exact S.
  - right. exists a, b. split; [left; reflexivity | split; [exact S | left; reflexivity]].
  - destruct IH as [T'|(x & y & Hx & Sw & Hy)].
    + left. exact (tc_step _ _ _ _ S T').
    + right. exists x, y. split; [exact (coh_hbo_trans a z x (coh_sb_hbo a z S) Hx) | split; assumption].
  - right. exists a, z. split; [left; reflexivity | split; [exact S | right; exact T]].
Qed.

(* ---- PTX's constraints on Xt, for one choice of its SC-fence order ---- *)

Section Target.
Variable sco : rel.
Hypothesis Coh : ptx_v6_ax_Coherence Xt sco.
Hypothesis CohMS : ptx_v6_ax_CoherenceMorallyStrong Xt sco.
Hypothesis SCL : ptx_v6_ax_SCPerLocation Xt sco.
Hypothesis Cau : ptx_v6_ax_Causality Xt sco.

Let coh_co_agrees := co_agrees Ps Pt Xs Xt C Xs_race_free sco Coh CohMS SCL.
Let coh_co_of_hb := co_of_hb Ps Pt Xs Xt C sco Coh CohMS SCL.

(* fr of Xs is fr of Xt (doubly negated). *)
Lemma coh_fr_st : forall a b, fr Xs a b -> ~ ~ fr Xt a b.
Proof.
  intros a b Fr. apply (nn_bind _ _ (fr_source_def _ _ _ _ C a b Fr)). intros (w & Rf & Co).
  apply (nn_bind _ _ (coh_co_agrees w b Co)). intro Ct.
  intro N. apply (wf_consistent_fr_def _ WfT a b). right. split; [|exact N].
  exists w. split; [exact (proj1 (c_lift_rf _ _ _ _ C) w a Rf) | exact Ct].
Qed.

(* (b) hb a b; rf b a *)
Lemma coh_hb_rf : forall a b, rc11_scoped_hb Xs a b -> rf Xs b a -> False.
Proof.
  intros a b H Rf.
  apply (rf_shape_nn Xs WfS b a Rf). intros (_ & Ra & Lba).
  pose proof (proj1 (c_lift_rf _ _ _ _ C) b a Rf) as Rft.
  apply (loc_in_target _ _ _ _ C b a Lba). intro Ltba.
  apply (loc_sym _ _ _ WfT Ltba). intro Ltab.
  apply (hb_in_cause _ _ _ _ C sco a b H). intros [Ia|[P|Cb]].
  - exact (R_not_IW Xs a WfS Ra Ia).
  - apply (SCL a). eapply tc_step; [right; split; [exact P | exact Ltab]|].
    apply tc_once. left. split; [exact (po_inv_morally_strong Xt b a P Ltba) | left; exact Rft].
  - apply (Cau b). exists a. split; [left; exact Rft | left; exact Cb].
Qed.

(* (d) hb a b; fr b a *)
Lemma coh_hb_fr : forall a b, rc11_scoped_hb Xs a b -> fr Xs b a -> False.
Proof.
  intros a b H Fr.
  apply (fr_source_def _ _ _ _ C b a Fr). intros (w & Rf & Co).
  apply (rf_shape_nn Xs WfS w b Rf). intros (_ & _ & Lwb).
  apply (wf_co_shape Xs WfS w a Co). intros [_ Lwa].
  pose proof (wf_co_init_first Xs WfS w a Co) as Na.
  apply (loc_sym _ _ _ WfS Lwb). intro Lbw.
  apply (loc_trans Xs WfS _ _ _ Lbw Lwa). intro Lba.
  apply (loc_in_target _ _ _ _ C b a Lba). intro Ltba.
  apply (loc_sym _ _ _ WfT Ltba). intro Ltab.
  apply (coh_fr_st b a Fr). intro Frt.
  apply (hb_in_cause _ _ _ _ C sco a b H). intros [Ia|[P|Cb]].
  - exact (Na Ia).
  - apply (SCL a). eapply tc_step; [right; split; [exact P | exact Ltab]|].
    apply tc_once. left. split; [exact (po_inv_morally_strong Xt b a P Ltba) | right; right; exact Frt].
  - apply (Cau b). exists a. split; [right; exact Frt | left; exact Cb].
Qed.

(* (c) hb a b; co b a *)
Lemma coh_hb_co : forall a b, rc11_scoped_hb Xs a b -> co Xs b a -> False.
Proof.
  intros a b H Co.
  apply (wf_co_shape Xs WfS b a Co). intros [[Wb Wa] Lba].
  pose proof (wf_co_init_first Xs WfS b a Co) as Na.
  assert (D : a <> b) by (intros ->; exact (wf_co_irreflexive Xs WfS b Co)).
  apply (loc_sym _ _ _ WfS Lba). intro Lab.
  apply (coh_co_of_hb a b Na Wa Wb Lab D H). intro Ct.
  apply (co_source_transitive _ _ _ _ C a b a (c_lift_co _ _ _ _ C a b Ct) Co).
  exact (co_source_irreflexive _ _ _ _ C a).
Qed.

(* (e) hb a b; co b c; rf c a *)
Lemma coh_hb_co_rf : forall a b c, rc11_scoped_hb Xs a b -> co Xs b c -> rf Xs c a -> False.
Proof.
  intros a b c H Co Rf.
  apply (rf_shape_nn Xs WfS c a Rf). intros (Wc & Ra & Lca).
  apply (wf_co_shape Xs WfS b c Co). intros [[Wb _] Lbc].
  pose proof (wf_co_init_first Xs WfS b c Co) as Nc.
  pose proof (R_not_IW Xs a WfS Ra) as Na.
  assert (Dca : c <> a) by (intros ->; exact (kinds_RW _ a WfS Ra Wc)).
  assert (Dcb : c <> b) by (intros ->; exact (wf_co_irreflexive Xs WfS b Co)).
  apply (RW_M Xs a WfS (or_introl Ra)). intro Ma.
  apply (loc_sym _ _ _ WfS Lbc). intro Lcb.
  apply (coh_not_racing c a Wc Ma Lca Dca). intros [Hca|[Hac|(Ac & I & Aa)]].
  - (* hb c b: co_t c b, against co_s b c *)
    apply (coh_co_of_hb c b Nc Wc Wb Lcb Dcb (tc_trans _ _ _ _ Hca H)). intro Ct.
    apply (co_source_transitive _ _ _ _ C b c b Co (c_lift_co _ _ _ _ C c b Ct)).
    exact (co_source_irreflexive _ _ _ _ C b).
  - exact (coh_hb_rf a c Hac Rf).
  - (* rf c a is obs in Xt: cause c b, and PTX's Coherence puts co_t c b *)
    apply (morally_strong_of_incl _ _ _ _ C c a Nc Na Ac Aa I Lca). intro Ms.
    pose proof (proj1 (c_lift_rf _ _ _ _ C) c a Rf) as Rft.
    apply (loc_sym _ _ _ WfS Lca). intro Lac.
    apply (loc_trans Xs WfS _ _ _ Lac Lcb). intro Lab.
    apply (loc_in_target _ _ _ _ C a b Lab). intro Ltab.
    apply (loc_in_target _ _ _ _ C c b Lcb). intro Ltcb.
    apply (writes_in_target _ _ _ _ C c Wc). intro Wtc.
    apply (writes_in_target _ _ _ _ C b Wb). intro Wtb.
    assert (Cs : ~ ~ ptx_v6_cause Xt sco c b).
    { apply (nn_bind _ _ (hb_in_cause _ _ _ _ C sco a b H)). intros [Ia|[P|Cb]].
      - intros _. exact (Na Ia).
      - apply nn_ret. right. exists a.
        split; [exact (ptx_v6_obs_1 Xt c a (conj Ms Rft)) | right; split; [exact P | exact Ltab]].
      - apply nn_ret. right. exists a. split; [exact (ptx_v6_obs_1 Xt c a (conj Ms Rft)) | left; exact Cb]. }
    apply Cs. intro Cs'.
    apply (Coh c b). split; [split; [|exact Ltcb]|].
    + exists c. split; [split; [exact Wtc | reflexivity]|].
      exists b. split; [exact Cs' | split; [exact Wtb | reflexivity]].
    + intro Ct. apply (co_source_transitive _ _ _ _ C b c b Co (c_lift_co _ _ _ _ C c b Ct)).
      exact (co_source_irreflexive _ _ _ _ C b).
Qed.

(* (f) hb a b; fr b c; rf c a *)
Lemma coh_hb_fr_rf : forall a b c, rc11_scoped_hb Xs a b -> fr Xs b c -> rf Xs c a -> False.
Proof.
  intros a b c H Fr Rf.
  apply (fr_source_def _ _ _ _ C b c Fr). intros (w & Rfw & Cow).
  apply (rf_shape_nn Xs WfS w b Rfw). intros (_ & _ & Lwb).
  apply (wf_co_shape Xs WfS w c Cow). intros [_ Lwc].
  pose proof (wf_co_init_first Xs WfS w c Cow) as Nc.
  apply (rf_shape_nn Xs WfS c a Rf). intros (Wc & Ra & Lca).
  pose proof (R_not_IW Xs a WfS Ra) as Na.
  assert (Dca : c <> a) by (intros ->; exact (kinds_RW _ a WfS Ra Wc)).
  apply (RW_M Xs a WfS (or_introl Ra)). intro Ma.
  apply (coh_not_racing c a Wc Ma Lca Dca). intros [Hca|[Hac|(Ac & I & Aa)]].
  - exact (coh_hb_fr c b (tc_trans _ _ _ _ Hca H) Fr).
  - exact (coh_hb_rf a c Hac Rf).
  - (* rf c a is obs in Xt: fr b c; cause c b fails PTX's Causality *)
    apply (morally_strong_of_incl _ _ _ _ C c a Nc Na Ac Aa I Lca). intro Ms.
    pose proof (proj1 (c_lift_rf _ _ _ _ C) c a Rf) as Rft.
    apply (loc_sym _ _ _ WfS Lca). intro Lac.
    apply (loc_sym _ _ _ WfS Lwc). intro Lcw.
    apply (loc_trans Xs WfS _ _ _ Lcw Lwb). intro Lcb.
    apply (loc_trans Xs WfS _ _ _ Lac Lcb). intro Lab.
    apply (loc_in_target _ _ _ _ C a b Lab). intro Ltab.
    apply (coh_fr_st b c Fr). intro Frt.
    apply (hb_in_cause _ _ _ _ C sco a b H). intros [Ia|[P|Cb]].
    + exact (Na Ia).
    + apply (Cau b). exists c. split; [right; exact Frt|].
      right. exists a.
      split; [exact (ptx_v6_obs_1 Xt c a (conj Ms Rft)) | right; split; [exact P | exact Ltab]].
    + apply (Cau b). exists c. split; [right; exact Frt|].
      right. exists a. split; [exact (ptx_v6_obs_1 Xt c a (conj Ms Rft)) | left; exact Cb].
Qed.

(* hb; eco is irreflexive. *)
Lemma coh_hb_eco : forall a b, rc11_scoped_hb Xs a b -> rc11_scoped_eco Xs b a -> False.
Proof.
  intros a b H Eco. apply (coh_eco_nf b a Eco).
  intros [Rf|[Co|[Fr|[(c & Co & Rf)|(c & Fr & Rf)]]]].
  - exact (coh_hb_rf a b H Rf).
  - exact (coh_hb_co a b H Co).
  - exact (coh_hb_fr a b H Fr).
  - exact (coh_hb_co_rf a b c H Co Rf).
  - exact (coh_hb_fr_rf a b c H Fr Rf).
Qed.

(* rf; rmw is in co. *)
Lemma coh_rf_rmw_co : forall w r1 w1, rf Xs w r1 -> rmw Xs r1 w1 -> ~ ~ co Xs w w1.
Proof.
  intros w r1 w1 Rf Rmw.
  apply (nn_bind _ _ (rf_shape_nn Xs WfS w r1 Rf)). intros (Ww & _ & Lwr).
  apply (nn_bind _ _ (rmw_shape_nn Xs WfS r1 w1 Rmw)). intros (_ & Ww1 & P & Lrw1).
  apply (nn_bind _ _ (loc_trans Xs WfS _ _ _ Lwr Lrw1)). intro Lww1.
  assert (H : rc11_scoped_hb Xs r1 w1) by (apply tc_once; left; left; exact P).
  destruct (PeanoNat.Nat.eq_dec w w1) as [<-|D].
  - intros _. exact (coh_hb_rf r1 w H Rf).
  - intro N. apply (c_co_s _ _ _ _ C w w1).
    split; [split; [split; [split; [exact Ww | exact Ww1] | exact Lww1] | exact (not_id _ _ _ WfS D)]|].
    intros [Co|Co]; [exact (N Co) | exact (coh_hb_co_rf r1 w1 w H Co Rf)].
Qed.

(* A release sequence's chain (incl & rf; rmw)* is in co?. *)
Lemma coh_chain_co : forall w m, rtc (E Xs) (seq (inter (incl Xs) (rf Xs)) (rmw Xs)) w m ->
  ~ ~ (w = m \/ co Xs w m).
Proof.
  intros w m Ch. induction Ch as [w _ | w z m (r1 & [_ Rf] & Rmw) _ IH].
  - apply nn_ret. left. reflexivity.
  - apply (nn_bind _ _ (coh_rf_rmw_co w r1 z Rf Rmw)). intro Cwz.
    apply (nn_bind _ _ IH). intros [<-|Czm].
    + apply nn_ret. right. exact Cwz.
    + apply (nn_bind _ _ (co_source_transitive _ _ _ _ C w z m Cwz Czm)). intro Cwm.
      apply nn_ret. right. exact Cwm.
Qed.

(* (a) hb is irreflexive. *)
Lemma coh_hb_irr : forall a, rc11_scoped_hb Xs a a -> False.
Proof.
  intros a H. change (tc (hb_step Xs) a a) in H.
  destruct (coh_hb_split a a H) as [T|(x & y & Hax & [_ Sw] & Hya)]; [exact (coh_sb_irr a T)|].
  pose proof (coh_hbo_trans y a x Hya Hax) as Hyx.
  destruct Sw as (m & (x1 & [_ <-] & w & Ow & w2 & (w1 & [Ww <-] & Osl) & w3 & [[Ww2 _] <-] & Ch)
                  & r & (r1 & [_ Rf] & [[Rr _] <-]) & y1 & Oacq & [_ ->]).
  assert (Hxw : coh_hbo Xs x w).
  { destruct Ow as [[_ <-]|(z & [_ <-] & S)]; [left; reflexivity | exact (coh_sb_hbo _ _ S)]. }
  assert (Hww2 : coh_hbo Xs w w2).
  { destruct Osl as [[_ <-]|[S _]]; [left; reflexivity | exact (coh_sb_hbo _ _ S)]. }
  assert (Hr1y : coh_hbo Xs r1 y).
  { destruct Oacq as [[_ <-]|(z & S & [_ <-])]; [left; reflexivity | exact (coh_sb_hbo _ _ S)]. }
  assert (Hrw : coh_hbo Xs r1 w2)
    by exact (coh_hbo_trans _ _ _ Hr1y (coh_hbo_trans _ _ _ Hyx (coh_hbo_trans _ _ _ Hxw Hww2))).
  destruct Hrw as [<-|Hrw]; [exact (kinds_RW _ r1 WfS Rr Ww2)|].
  apply (coh_chain_co w2 m Ch). intros [<-|Co].
  - exact (coh_hb_rf r1 w2 Hrw Rf).
  - exact (coh_hb_co_rf r1 w2 m Hrw Co Rf).
Qed.

(* Scoped RC11's Coherence on Xs, given PTX's constraints on Xt. *)
Lemma coherence_from_target : rc11_scoped_ax_Coherence Xs.
Proof.
  intros a (b & H & [[_ <-]|Eco]).
  - exact (coh_hb_irr _ H).
  - exact (coh_hb_eco a b H Eco).
Qed.

End Target.
End Coherence.

(* Scoped RC11's Coherence on the lift of a PTX-consistent execution with no data race. *)
Theorem coherence_of_race_free_lift : forall Ps Pt Xs Xt, compilation Ps Pt Xs Xt ->
  rc11_scoped_race_free Xs -> rc11_scoped_ax_Coherence Xs.
Proof.
  intros Ps Pt Xs Xt C Rf.
  destruct (c_consistent_t _ _ _ _ C) as (sco & _ & Coh & CohMS & _ & _ & SCL & _ & Cau).
  exact (coherence_from_target Ps Pt Xs Xt C Rf sco Coh CohMS SCL Cau).
Qed.

(* Given that every lift is race free ([lifts_race_free], Atomicity file), the claim holds. *)
Theorem claim_Coherence_of_lifts_race_free : lifts_race_free -> claim_rc11_scoped_ax_Coherence.
Proof.
  intros L Ps Pt Xs Xt C _. exact (coherence_of_race_free_lift Ps Pt Xs Xt C (L Ps Pt Xs Xt C)).
Qed.
